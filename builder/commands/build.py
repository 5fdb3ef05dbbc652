"""``prematch build``: render the static site from an archive into a folder."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from builder.site.build import build_site, check_out_dir
from collector.archive.cache import default_cache_folder
from collector.archive.folder import check_archive_dir
from collector.commandline import EXIT_DONE, EXIT_PROBLEMS, finish, shown
from collector.errors import ConfigError, Problem, UsageError
from collector.redaction import files_holding_secret


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("build", help="render the static site (leaderboard, matches, charts, data) from an archive",
                            description=(
                                "Render the static site (leaderboard, matches, questions, bracket, "
                                "forecasters, charts, data) from an archive into a folder. Each "
                                "archive file left out is one 'problem:' line on stderr. Last, with an "
                                "API key in the environment, every file of the site is searched for it "
                                "in any encoding; a file that holds it is removed and fails the build."
                            ),
                            epilog=(
                                "Environment: PREMATCH_BUILD_WORKERS=1 makes the whole build in this "
                                "process; =2 makes the row analyses (difficulty, robustness, test "
                                "families, diversity), the leaderboard slices and the paper tables "
                                "in a forked child while the archive is scored, then makes the downloads "
                                "in another while the pages are made, at any archive size; unset: "
                                "children on a machine with more than one core for archives of at "
                                "most 80,000 records and for every build whose page cache holds an "
                                "earlier build's pages (a child costs memory: its pages are copied "
                                "as it reads). Scoring runs on one BLAS thread. The site is the same "
                                "bytes either way."
                            ))
    parser.add_argument("--archive", type=Path, default=Path("archive"), help="archive folder to read (default: archive)")
    parser.add_argument("--out", type=Path, default=Path("site"),
                        help="output folder; replaced if it holds a previous build (default: site)")
    parser.add_argument("--commit", default=None,
                        help="commit id to print on the site (default: git rev-parse HEAD of the archive folder)")
    parser.add_argument("--config", type=Path, default=Path("prematch.toml"),
                        help="arena configuration whose [arena] repository_url the record links point to "
                             "(default: prematch.toml if present; else $GITHUB_SERVER_URL/$GITHUB_REPOSITORY)")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 when archive files fail validation (they are reported and left out either way)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="folder of the page cache: only pages whose inputs changed since the build that "
                             "filled it are rendered and only files whose bytes changed are rewritten, the site is "
                             "the same bytes (default: .git/prematch of the archive's repository; none outside git)")
    parser.add_argument("--no-cache", action="store_true",
                        help="render every page, write the whole site afresh and leave any cache alone")
    parser.add_argument("--quiet", action="store_true", help="print only the final summary")
    parser.add_argument("--allow-empty", action="store_true",
                        help="build a site from an archive with no valid record and exit 0 (default: the site is "
                             "built, a warning line names the archive, and the exit is 1: a wrong --archive "
                             "must not publish an empty site)")
    return parser


def run(args: argparse.Namespace) -> int:
    check_archive_dir(args.archive)
    from builder.parallel import workers

    try:
        workers()  # a bad PREMATCH_BUILD_WORKERS is a usage error before any work
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    try:
        check_out_dir(args.out)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    from builder.site.provenance import arena_urls

    try:
        urls = arena_urls(args.config)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    progress = (lambda _line: None) if args.quiet else (lambda line: print(line, flush=True))
    cache = None if args.no_cache else (args.cache or default_cache_folder(args.archive))
    report = build_site(args.archive, args.out, commit=args.commit, progress=progress, urls=urls, cache=cache)
    leaked = remove_secrets(args.out)
    report.problems += leaked
    code = max(finish(report, fail_on_problems=args.strict), EXIT_PROBLEMS if leaked else EXIT_DONE)
    if report.records == 0 and not args.allow_empty:
        print(shown(f"warning: {args.archive} holds no valid record, so the site in {args.out} is empty; check "
                    "--archive, or pass --allow-empty to build an empty site on purpose"), file=sys.stderr)
        return EXIT_PROBLEMS
    return code


def remove_secrets(out: Path) -> list[Problem]:
    """The build's last step: with a secret in the environment, every file of the site is searched for it
    in every form the sanitiser knows (:func:`collector.redaction.files_holding_secret`); a file that
    holds it is removed, and is a problem that fails the build whatever ``--strict`` says."""
    from builder.site.build import static_files

    problems = []
    for path in files_holding_secret(out, shipped=static_files()):
        path.unlink()
        problems.append(Problem(str(path), "holds a secret (an API key) in some form; removed from the site"))
    return problems
