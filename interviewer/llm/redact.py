"""Redaction: no API key in any text the product produces."""

from __future__ import annotations

import re

from interviewer.llm.settings import BackendSettings

# --------------------------------------------------------------------------------------------
# Redaction: no key in any text we produce

_KEY_PATTERN = re.compile(r"\b(sk-[A-Za-z0-9_\-*]{3})[A-Za-z0-9_\-*]+")


def scrub(text: str, settings: BackendSettings | None = None) -> str:
    """Remove the configured key, and anything shaped like an OpenAI key, from a message."""
    if settings is not None and settings.api_key is not None:
        secret = settings.api_key.get_secret_value()
        if len(secret) >= 4:
            text = text.replace(secret, "[key]")
    return _KEY_PATTERN.sub(r"\1…", text)
