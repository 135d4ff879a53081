"""What the harness's library clients share (clients/py_clients.py, the
SDKs; clients/gateway_clients.py, LiteLLM in its own venv): the one
conversation every client sends, the time bound of a call, and how a raise
is recorded. Standard library only, so that either venv imports it."""

# The conversation each client sends: one user turn.
MESSAGES = [{"role": "user", "content": "hi"}]
# Each call's timeout, in seconds.
TIMEOUT_S = 15.0


def first_line(s):
    """The first line of `s` (an exception's message), at most 300
    characters."""
    return str(s).split("\n")[0][:300]


def failure(e):
    """The outcome of a client that raised `e`: its type and the first line
    of its message."""
    return {"error": {"type": type(e).__name__, "message": first_line(e)}}
