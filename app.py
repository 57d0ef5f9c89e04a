"""Streamlit entry point: `streamlit run app.py`.

Pages live in interviewer/ui/; this file only sets the page up, says who the visitor is (local
mode: the one local user; hosted: st.login, see common.owner) and runs the chosen page with errors
turned into one line. On a hosted server a signed-out visitor gets the sign-in prompt instead of
any page that shows rounds.
"""
from __future__ import annotations

import logging

import streamlit as st

from interviewer.ui import common

if not logging.getLogger().handlers:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

st.set_page_config(page_title="Mock design round", page_icon="🎙️", layout="wide")

PAGES = [
    st.Page(common.ROUND_PAGE, title="Mock round", icon=":material/forum:", url_path="round", default=True),
    st.Page(common.REPORT_PAGE, title="Report", icon=":material/grading:", url_path="report"),
    st.Page(common.HISTORY_PAGE, title="History", icon=":material/history:", url_path="history"),
    st.Page(common.BANK_PAGE, title="Question bank", icon=":material/menu_book:", url_path="bank"),
    st.Page(common.WHITEBOARD_PAGE, title="Whiteboard", icon=":material/calculate:", url_path="whiteboard"),
    st.Page(common.SETTINGS_PAGE, title="Settings", icon=":material/settings:", url_path="settings"),
]

page = st.navigation(PAGES)


def run_page() -> None:
    common.identity_sidebar()
    if common.may_open(page):
        page.run()
    else:
        common.sign_in_prompt()


common.guard(run_page)
