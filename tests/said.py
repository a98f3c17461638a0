"""What a command said on stderr, less the compile notices: a run on a cold numba cache (a fresh
clone, CI) prints them before anything else, so a test that counts a command's lines of error
counts them without the notices."""

NOTICES = (
    "arbiter: compiling ",
    "arbiter: still compiling ",
    "compiling the numba code of ",
    "compiling the study's simulator",
)


def said(err: str | bytes) -> list[str]:
    """The lines of ``err`` that are neither blank nor compile notices."""
    if isinstance(err, bytes):
        err = err.decode(errors="replace")
    return [line for line in err.splitlines() if line.strip() and not line.startswith(NOTICES)]
