"""The LLM voice: backend settings, the chat model, a connection check, and `speak`.

The deterministic policy decides each Move; an LLM, when one is configured, only phrases it.
Three backends: "offline" (the built-in templates of interviewer.voice, no model at all),
"openai" (OPENAI_API_KEY) and "local" (any OpenAI-compatible server named by OPENAI_BASE_URL:
vLLM, llama.cpp, Ollama).

Modules: settings (the operator's and a visitor's backend), redact (no key in any text), client
(the LangChain chat model and the connection check), prompts (templates filled from a move),
speech (`speak` and the session's LLMVoice).

`speak` is what a round calls. It streams the LLM's wording of a move and never raises for a
backend fault: a refused connection, a timeout, an empty or unreadable reply, or a stream that
breaks off is retried within one bounded wait (`max_retries` extra attempts, all inside `timeout_s`), and then the built-in interviewer's text,
which the caller passes as `fallback_text`, takes the turn, with a one-line notice. The final
text of a turn is either a complete LLM reply or the fallback, never half of a reply.

Prompts live in interviewer/prompts/*.md (LangChain f-string templates). API keys are
pydantic SecretStr values: not in repr, dumps, notices, reports or logs.
"""
from interviewer.llm.client import (
                                    ConnectionReport,
                                    _guess_model,
                                    _model_from,
                                    _short,
                                    describe_error,
                                    make_chat_model,
                                    resolve_model,
                                    served_models,
                                    test_connection,
)
from interviewer.llm.prompts import (
                                    GENERIC_COMPANY,
                                    PROMPTS_DIR,
                                    build_messages,
                                    chat_template,
                                    format_history,
                                    load_prompt,
                                    prompt_variables,
)
from interviewer.llm.redact import scrub
from interviewer.llm.settings import (
                                    BACKENDS,
                                    CONNECTION_TEST_TIMEOUT_S,
                                    DEFAULT_LOCAL_BASE_URL,
                                    DEFAULT_OPENAI_MODEL,
                                    LOCAL_PLACEHOLDER_KEY,
                                    OPENAI_BASE_URL,
                                    Backend,
                                    BackendSettings,
                                    ModelSource,
                                    StructuredOutput,
                                    backend_settings,
                                    settings_from_env,
                                    visitor_settings,
)
from interviewer.llm.speech import (
                                    LLMVoice,
                                    SpeakOutcome,
                                    Speech,
                                    budget_s,
                                    clean_text,
                                    finish_text,
                                    is_garbage,
                                    speak,
                                    stream_reply,
)

__all__ = [
    "BACKENDS", "CONNECTION_TEST_TIMEOUT_S", "DEFAULT_LOCAL_BASE_URL", "DEFAULT_OPENAI_MODEL", "GENERIC_COMPANY",
    "LOCAL_PLACEHOLDER_KEY", "OPENAI_BASE_URL", "PROMPTS_DIR", "Backend", "BackendSettings", "ConnectionReport",
    "LLMVoice", "ModelSource", "SpeakOutcome", "Speech", "StructuredOutput", "_guess_model", "_model_from", "_short",
    "backend_settings", "budget_s", "build_messages", "chat_template", "clean_text", "describe_error", "finish_text",
    "format_history", "is_garbage", "load_prompt", "make_chat_model", "prompt_variables", "resolve_model", "scrub",
    "served_models", "settings_from_env", "speak", "stream_reply", "test_connection", "visitor_settings",
]
