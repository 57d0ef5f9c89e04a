"""The Streamlit UI: one script per page (run by app.py's st.navigation) plus shared helpers.

Pages only call the library (interviewer.interview, grader, capacity, simulator, store, llm);
no grading or interviewer policy lives here.
"""
