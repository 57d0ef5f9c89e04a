"""The one exception type whose message is shown to a user as-is."""


class UserError(Exception):
    """Bad input or environment, explained in one line; never shown as a traceback."""

    def __str__(self) -> str:  # one line, whatever the caller passed
        return " ".join(str(self.args[0] if self.args else "error").split())
