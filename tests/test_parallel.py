"""builder.parallel: tasks run in a forked child (or serially in the parent), their results,
failures and deaths reported by name, and no child process left behind."""

from __future__ import annotations

import os
import re
import signal
import time

import pytest
from children import no_child_left

from builder import parallel
from builder.parallel import Background, BackgroundError

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")


def _boom():
    raise ValueError("the table has no rows")


@needs_fork
def test_tasks_run_in_a_child_process_and_their_results_come_back_by_name():
    with Background([("pid", os.getpid), ("rows", lambda: [(1, "a", 0.5)] * 3)], parallel=True) as work:
        assert work.result("rows") == [(1, "a", 0.5)] * 3
        assert work.result("pid") != os.getpid()
        assert set(work.seconds) == {"pid", "rows"}
    assert no_child_left()


def test_the_serial_fallback_runs_each_task_here_when_asked_and_gives_the_same_result():
    ran: list[str] = []
    work = Background([("pid", lambda: ran.append("pid") or os.getpid()), ("rows", lambda: [(1, "a", 0.5)])],
                      parallel=False)
    assert ran == []  # nothing runs before its result is asked for
    assert work.result("rows") == [(1, "a", 0.5)]
    assert work.result("pid") == os.getpid() and ran == ["pid"]


@pytest.mark.parametrize("setting, expected", [("1", 1), ("2", 2), ("0", 1)])
def test_the_environment_switch_sets_the_number_of_processes(monkeypatch, setting, expected):
    monkeypatch.setenv(parallel.WORKERS_ENV, setting)
    assert parallel.workers() == (expected if hasattr(os, "fork") else 1)
    with Background([("x", int)]) as work:
        assert work.parallel is (parallel.workers() > 1)
        assert work.result("x") == 0


def test_a_bad_environment_switch_is_an_error_naming_it(monkeypatch):
    monkeypatch.setenv(parallel.WORKERS_ENV, "many")
    with pytest.raises(ValueError, match="PREMATCH_BUILD_WORKERS='many'"):
        parallel.workers()


def test_one_core_or_no_fork_runs_serially(monkeypatch):
    monkeypatch.delenv(parallel.WORKERS_ENV, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert parallel.workers() == 1
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.delattr(os, "fork", raising=False)
    assert parallel.workers() == 1
    assert Background([("x", int)]).parallel is False


@needs_fork
def test_an_exception_in_the_child_names_the_task_its_type_message_and_traceback():
    with Background([("tables", _boom)], parallel=True) as work:
        with pytest.raises(BackgroundError) as raised:
            work.result("tables")
    text = str(raised.value)
    assert "'tables'" in text and "builtins.ValueError: the table has no rows" in text
    assert "in _boom" in text  # the child's traceback
    assert no_child_left()


@needs_fork
def test_a_result_that_cannot_be_pickled_is_an_error_not_a_partial_result():
    with Background([("lock", lambda: (lambda: None))], parallel=True) as work:
        with pytest.raises(BackgroundError, match="'lock' failed in the child process"):
            work.result("lock")
    assert no_child_left()


@needs_fork
@pytest.mark.parametrize("die, said", [
    (lambda: os._exit(3), "exited with code 3"),
    (lambda: os.kill(os.getpid(), signal.SIGKILL), "was killed by signal 9 (SIGKILL)"),
    (lambda: os.kill(os.getpid(), signal.SIGSEGV), "was killed by signal 11 (SIGSEGV)"),
])
def test_a_child_that_dies_is_an_error_naming_how(die, said):
    with Background([("first", int), ("dies", die), ("after", int)], parallel=True) as work:
        assert work.result("first") == 0  # sent before the child died
        with pytest.raises(BackgroundError, match=re.escape(f"'dies': the child process {said}")):
            work.result("dies")
        with pytest.raises(BackgroundError):
            work.result("after")  # never ran: an error too, never a missing value taken for a result
    assert no_child_left()


@needs_fork
def test_a_large_early_result_does_not_hold_up_the_later_tasks(tmp_path):
    marker = tmp_path / "second-ran"
    with Background([("big", lambda: b"x" * 8_000_000), ("second", lambda: marker.write_text("ok"))],
                    parallel=True) as work:
        work.result("second")  # asked first: the 8 MB result was drained without being asked for
        assert marker.read_text() == "ok"
        assert len(work.result("big")) == 8_000_000


@needs_fork
def test_a_failure_or_interruption_in_the_parent_kills_and_reaps_a_running_child():
    with pytest.raises(KeyboardInterrupt):
        with Background([("slow", lambda: time.sleep(60))], parallel=True) as work:
            pid = work._pid
            raise KeyboardInterrupt
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # gone, and reaped (a zombie would still take a signal 0)
    assert no_child_left()


@needs_fork
def test_closing_after_every_result_leaves_no_zombie():
    work = Background([("one", int)], parallel=True)
    assert work.result("one") == 0
    work.close()
    work.close()  # idempotent
    assert no_child_left()


def test_task_names_are_unique_and_known():
    with pytest.raises(ValueError):
        Background([("a", int), ("a", int)], parallel=False)
    with pytest.raises(KeyError):
        Background([("a", int)], parallel=False).result("b")


@needs_fork
def test_a_frame_cut_short_is_an_error_never_unpickled(monkeypatch):
    real = parallel._frame
    monkeypatch.setattr(parallel, "_frame", lambda *args: real(*args)[:12])  # the child sends 12 bytes of it, then ends
    with Background([("cut", lambda: b"x" * 100)], parallel=True) as work:
        with pytest.raises(BackgroundError, match="'cut': the child process exited with code 0 before sending"):
            work.result("cut")
    assert no_child_left()
