"""Bootstrap results kept between builds (builder.score.memo): a result is reused only for the
same inputs (resampler, values, parameters, code), is the same bytes as computing it again, and
a memo file that cannot be trusted is a note and a full computation, never a wrong number."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from pathlib import Path

import numpy as np
import pytest
from factories import synthetic_records, write_records
from cache_tampering import swap_entries
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.score import memo as memo_module
from builder.score.difficulty import adjusted_intervals, bootstrap_adjusted
from builder.score.each_column import studentized_each
from builder.score.memo import BootstrapMemo, inputs_key, memoised, remembering
from builder.score.resampling import LEVEL, MULTINOMIAL, POISSON, Resampler
from builder.site.build import build_site
from builder.site.cache import BOOTSTRAP as KIND
from builder.site.cache import CacheDB
from collector.archive.store import STORE_FILE, Store, pack_arrays
from collector.records import Outcome


def _open(folder: Path) -> BootstrapMemo:
    """The memo a build in ``folder`` opens: the bootstrap entries of the folder's one cache."""
    cache = CacheDB.open(folder)
    memo = cache.bootstrap_memo()
    memo.cache = cache  # for _save
    return memo


def _save(memo: BootstrapMemo) -> str:
    """What a build does at its end: the memo's results kept, then the store committed."""
    memo.cache.keep_bootstrap(memo)
    return memo.cache.store.commit()


def _resampler(n_events: int = 30, replicates: int = 400, seed: int = 7, scheme: str = POISSON) -> Resampler:
    events = {("c", f"e{i:02d}"): i >= n_events * 2 // 3 for i in range(n_events)}
    return Resampler.for_events(events, seed=seed, replicates=replicates, permutations=300, scheme=scheme)


def _values(n_events: int = 30, columns: int = 5, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = rng.random((n_events, columns))
    values[rng.random(values.shape) < 0.2] = np.nan  # absent events, as in a cell's column
    return values


def _same(a, b) -> bool:
    """Equal to the bit, NaN where the other has NaN."""
    return all(x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes() for x, y in zip(a, b, strict=True))


def test_without_a_memo_every_call_computes():
    calls = []
    for _ in range(2):
        memoised("k", (1,), lambda: calls.append(1) or (np.zeros(2),), ((2,),))
    assert len(calls) == 2


def test_the_same_inputs_are_computed_once_and_each_caller_gets_its_own_copy():
    resampler, values, memo = _resampler(), _values(), BootstrapMemo()
    with remembering(memo):
        first = resampler.studentized_intervals(values)
        first[0][:] = 99.0  # a caller writing into its result does not change the kept one
        again = resampler.studentized_intervals(values.copy())
    assert (memo.reused, memo.computed) == (1, 1)
    assert _same(again, resampler.studentized_intervals(values))  # no memo active: computed afresh


@pytest.mark.parametrize("change", ["value", "absent", "level", "chunk", "draws", "method", "strata", "scheme"])
def test_any_change_to_the_inputs_computes_again(change):
    resampler, values = _resampler(), _values()
    level, chunk = LEVEL, 128
    memo = BootstrapMemo()
    with remembering(memo):
        resampler.studentized_intervals(values, level, chunk)
        if change == "value":
            values = values.copy()
            values[np.flatnonzero(~np.isnan(values[:, 0]))[0], 0] = np.nextafter(values[0, 0], 2)
        elif change == "absent":
            values = values.copy()
            values[np.flatnonzero(~np.isnan(values[:, 1]))[0], 1] = np.nan
        elif change == "level":
            level = 0.9
        elif change == "chunk":
            chunk = 2
        elif change == "draws":
            resampler = _resampler(seed=8)
        elif change == "strata":  # the same counts as one stratum: other scales, other weights
            resampler = dataclasses.replace(resampler, sizes=(len(resampler.events),))
        elif change == "scheme":
            resampler = _resampler(scheme=MULTINOMIAL)
        else:
            resampler = dataclasses.replace(resampler, method="percentile")
        resampler.studentized_intervals(values, level, chunk)
    assert (memo.reused, memo.computed) == (0, 2)


def test_kept_results_are_the_bytes_computed_afresh(tmp_path):
    """Every memoised computation: computed, saved, read back by the next build and reused."""
    resampler, values = _resampler(), _values()
    y = _values(30, 4, seed=3)
    mask = ~np.isnan(y)
    events = list(resampler.events)

    def everything():
        return [resampler.studentized_intervals(values), resampler.intervals(values),
                (resampler.sign_flip_p(values - 0.5),), adjusted_intervals(y, mask, resampler, events),
                studentized_each(resampler, values)]

    fresh = everything()
    first = _open(tmp_path)
    with remembering(first):
        assert all(_same(a, b) for a, b in zip(everything(), fresh, strict=True))
    assert _save(first) == "" and (tmp_path / STORE_FILE).is_file()
    second = _open(tmp_path)
    with remembering(second):
        kept = everything()
    assert (second.reused, second.computed, second.note) == (5, 0, None)
    assert all(_same(a, b) for a, b in zip(kept, fresh, strict=True))


def test_difficulty_interval_is_the_percentiles_of_the_bootstrap():
    """Hand route: the interval is numpy's percentiles of ``bootstrap_adjusted``'s replicates."""
    resampler = _resampler()
    y = _values(30, 3, seed=5)
    mask = ~np.isnan(y)
    boot = bootstrap_adjusted(y, mask, resampler, list(resampler.events))
    low, high = adjusted_intervals(y, mask, resampler, list(resampler.events))
    tail = (1 - LEVEL) / 2 * 100  # 2.5 as the code computes it (2.5000000000000022: interpolation's last bit)
    assert np.array_equal(low, np.nanpercentile(boot, tail, axis=0))
    assert np.array_equal(high, np.nanpercentile(boot, 100 - tail, axis=0))


def test_only_the_results_a_build_used_are_kept(tmp_path):
    resampler = _resampler()
    a, b = _values(seed=1), _values(seed=2)
    memo = _open(tmp_path)
    with remembering(memo):
        resampler.studentized_intervals(a)
        resampler.studentized_intervals(b)
    _save(memo)
    memo = _open(tmp_path)
    with remembering(memo):
        resampler.studentized_intervals(b)
    _save(memo)
    assert Store.open(tmp_path).keys(KIND) == [inputs_key("studentized", (resampler, b, LEVEL, 128))]


@pytest.mark.parametrize("damage", ["truncated", "garbage", "shifted", "swapped", "unkeyed", "pickled"])
def test_a_damaged_or_forged_memo_entry_is_rejected_and_computed(tmp_path, damage):
    """Whatever is done to the cache file, the result is the computation's; a forged entry is named."""
    import sqlite3

    resampler, values, other = _resampler(), _values(), _values(seed=9)
    memo = _open(tmp_path)
    with remembering(memo):
        fresh = resampler.studentized_intervals(values)
        resampler.studentized_intervals(other)
    _save(memo)
    path = tmp_path / STORE_FILE
    key = inputs_key("studentized", (resampler, values, LEVEL, 128))
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif damage == "garbage":
        path.write_bytes(b"not a database at all")
    else:
        with sqlite3.connect(path) as db:
            if damage == "shifted":  # every array + 0.25, its digest and size updated, the tag left
                value = pack_arrays(a + 0.25 for a in fresh)
                db.execute("UPDATE entries SET value = ?, digest = ?, size = ? WHERE key = ?",
                           (value, hashlib.sha256(value).hexdigest(), len(value), key))
            elif damage == "swapped":  # the two results exchanged, each with its digest, size and tag
                swap_entries(db, KIND)
            elif damage == "unkeyed":  # written by someone without the cache's key
                db.execute("UPDATE entries SET tag = zeroblob(32) WHERE key = ?", (key,))
            else:  # an object array where the arrays were (np.load refuses pickles)
                import io
                out = io.BytesIO()
                np.save(out, np.array([object()], dtype=object), allow_pickle=True)
                db.execute("UPDATE entries SET value = ? WHERE key = ?", (out.getvalue(), key))
    memo = _open(tmp_path)
    store = memo.cache.store
    with remembering(memo):
        again = resampler.studentized_intervals(values)
    assert (memo.computed, _same(again, fresh)) == (1, True)
    lines = " ".join(store.report())
    if damage in ("truncated", "garbage"):
        assert "unreadable" in lines and str(path) in lines
    else:
        assert "rejected" in lines and key[:12] in lines


def test_a_kept_result_of_the_wrong_shape_is_computed_again(tmp_path):
    resampler, values = _resampler(), _values()
    key = inputs_key("studentized", (resampler, values, LEVEL, 128))
    store = Store.open(tmp_path)
    store.put(KIND, key, pack_arrays((np.zeros(2), np.zeros(2))))  # 5 columns asked for
    store.commit()
    memo = _open(tmp_path)
    with remembering(memo):
        got = resampler.studentized_intervals(values)
    assert (memo.reused, memo.computed) == (0, 1) and "other shapes" in memo.note
    assert _same(got, resampler.studentized_intervals(values))


def test_an_unwritable_cache_is_reported_and_the_results_stand(tmp_path):
    (tmp_path / "blocked").write_text("a file where the cache folder should be")
    memo = _open(tmp_path / "blocked")
    with remembering(memo):
        _resampler().studentized_intervals(_values())
    assert _save(memo) == ""  # nothing to write into
    store = memo.cache.store
    assert "nothing written" in " ".join(store.report())


@settings(max_examples=25, deadline=None)
@given(st.integers(4, 25), st.integers(1, 6), st.integers(0, 2**32 - 1), st.floats(0.0, 0.6))
def test_invariant_reused_equals_computed(n_events, columns, seed, absent):
    """For any values: the memo's result is the computation's, and the key tells any two inputs apart."""
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n_events, columns))
    values[rng.random(values.shape) < absent] = np.nan
    resampler = _resampler(n_events, replicates=64, seed=seed % 97)
    memo = BootstrapMemo()
    with remembering(memo):
        computed = resampler.studentized_intervals(values)
        reused = resampler.studentized_intervals(values)
        p = resampler.sign_flip_p(values)
    assert _same(computed, reused) and memo.reused == 1
    assert _same(reused, dataclasses.replace(resampler).studentized_intervals(values))
    assert _same((p,), (resampler.sign_flip_p(values),))
    other = values.copy()
    other[0, 0] = 1.5 if np.isnan(other[0, 0]) else np.nan
    assert inputs_key("studentized", (resampler, other, LEVEL, 128)) != inputs_key("studentized", (resampler, values, LEVEL, 128))


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _memo_line(lines: list[str]) -> tuple[int, int]:
    found = [re.search(r"bootstrap results reused (\d+), computed (\d+)", line) for line in lines]
    reused, computed = next(m for m in found if m).groups()
    return int(reused), int(computed)


@pytest.mark.slow
def test_builds_through_ticks_reuse_results_and_match_a_build_without_cache(tmp_path):
    """A live arena's ticks: forecasts for matches not played yet reuse every bootstrap result; the
    outcomes arriving compute them again; each site is the bytes of a build without any cache."""
    records = synthetic_records(n_events=14, n_models=2, seed=3, knockout_from=9)
    late = {"m013", "m014"}

    def of_late(record) -> bool:
        return any(getattr(record, name, None) in late for name in ("event_id", "target_id", "id"))

    archive, cache, site = tmp_path / "archive", tmp_path / "cache", tmp_path / "site"
    write_records(archive, [r for r in records if not of_late(r)])
    arrivals = [[r for r in records if of_late(r) and not isinstance(r, Outcome)],
                [r for r in records if of_late(r) and isinstance(r, Outcome)]]
    seen = []
    for step in range(3):
        if step:
            write_records(archive, arrivals[step - 1])
        lines: list[str] = []
        build_site(archive, site, commit=f"c{step}", cache=cache, progress=lines.append)
        seen.append(_memo_line(lines))
        fresh = tmp_path / f"fresh{step}"
        build_site(archive, fresh, commit=f"c{step}", progress=lambda _line: None)
        assert _tree(site) == _tree(fresh)
    (_, first), (reused, computed), (_, after_results) = seen
    assert first > 0 and computed == 0 and reused >= first  # nothing new scored: every result kept
    assert after_results > 0  # new scored rows: new resamplers, computed again


def test_prophet_arena_symmetric_intervals_are_kept_as_computed(tmp_path):
    """The analysis page's Prophet Arena intervals (mean +- h): reused from the memo, the same floats."""
    from builder.score.paper_common import Columns as _Columns
    from builder.score.paper_table_pa import _syms

    resampler = _resampler(scheme=MULTINOMIAL)  # the paper tables' scheme
    rng = np.random.default_rng(4)
    asked = [{e: float(rng.random()) for e in resampler.events if rng.random() < 0.7} for _ in range(4)]
    asked.append({resampler.events[0]: 0.25})  # one event: no interval, not asked of the memo
    fresh = _syms(_Columns(resampler), asked)
    for step in range(2):
        memo = _open(tmp_path)
        with remembering(memo):
            assert _syms(_Columns(resampler), asked) == fresh
        assert (memo.reused, memo.computed) == ((0, 1) if step == 0 else (1, 0))
        _save(memo)
    assert fresh[-1] == (0.25, None) and all(h is not None and h > 0 for _, h in fresh[:-1])
