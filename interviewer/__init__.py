"""Mock LLM-inference / GPU-serving design rounds: question bank, rubric, grader, interviewer."""

__version__ = "0.1.0"
