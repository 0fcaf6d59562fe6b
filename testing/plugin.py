"""judgegraph's pytest plugin: the judge's options, the session's judge for `assert_judged`,
and the table at the end of the session.

Installed with judgegraph, it is on in every pytest session (the `pytest11` entry point named
`judgegraph`; `-p no:judgegraph` turns it off), so importing it must cost nothing: the judging
stack is imported on the first `assert_judged`, not here.

A judge that cannot be used ends the session (`pytest.exit`, exit code 2, the judge's URL and
the cause in the message): it is not a failed assertion, and no test after it runs, so no test
passes on a judge that never answered.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .session import JudgeSession, JudgeUnavailableError, activate
from .settings import OPTIONS, resolve_settings
from .summary import summary_lines

SESSION = pytest.StashKey[JudgeSession]()
EXIT_JUDGE_UNAVAILABLE = pytest.ExitCode.INTERRUPTED
"""2: the session was stopped, as `judgegraph` itself exits 2 when the judge cannot be used."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("judgegraph", "judgegraph: LLM-as-a-judge assertions (assert_judged)")
    for option in OPTIONS:
        dest = f"judgegraph_{option.name}"
        if option.is_flag:
            group.addoption(option.flag, action="store_true", dest=dest, default=False, help=option.help)
            parser.addini(option.ini, option.help, type="bool", default=False)
        else:
            group.addoption(option.flag, dest=dest, default=None, help=option.help)
            parser.addini(option.ini, option.help, default="")


def pytest_configure(config: pytest.Config) -> None:
    settings = resolve_settings(lambda name: config.getoption(f"judgegraph_{name}"), config.getini,
                                config.rootpath)
    session = JudgeSession(settings)
    config.stash[SESSION] = session
    activate(session)


def pytest_unconfigure(config: pytest.Config) -> None:
    if SESSION in config.stash:
        activate(None)


def _stop_if_unavailable(session: JudgeSession) -> None:
    if session.unavailable is not None:
        pytest.exit(f"judgegraph: {session.unavailable}", returncode=EXIT_JUDGE_UNAVAILABLE)


def _judging_phase(item: pytest.Item) -> Iterator[None]:
    """One phase of a test (its fixtures' setup, its body): a test that met an unusable judge
    ends the session, even if it caught the error."""
    session = item.config.stash[SESSION]
    session.current_test = item.nodeid
    try:
        yield
    except JudgeUnavailableError:
        pass
    _stop_if_unavailable(session)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    return (yield from _judging_phase(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    return (yield from _judging_phase(item))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    session = config.stash.get(SESSION, None)
    lines = summary_lines(session) if session is not None else []
    if not lines:
        return
    terminalreporter.write_sep("=", "judgegraph")
    for line in lines:
        terminalreporter.write_line(line)
