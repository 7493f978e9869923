"""Where ``one_file.scan_batch`` runs: in this process (``JOBS`` 1), in local worker processes
(``multiprocessing``'s pool), or as Ray tasks on a Ray cluster (``ENGINE`` ray). Every engine
runs the same function on the same batches and yields the outcomes as they finish; the caller
writes them, so what is in flight is bounded by the engine, not by the number of files.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator

from agentbisect.core.errors import UsageError
from agentbisect.scan.one_file import FileOutcome, FileTask, scan_batch

RAY_INSTALL = "pip install 'agentbisect[ray]'"


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def batches(tasks: list[FileTask], jobs: int) -> list[list[FileTask]]:
    """Files in batches: ~8 per worker and round at least, at most 16 files each (a batch is
    one message or one Ray task; small batches keep the workers evenly busy)."""
    size = max(1, min(16, len(tasks) // (jobs * 8) or 1))
    return [tasks[i : i + size] for i in range(0, len(tasks), size)]


def run_local(tasks: list[FileTask], jobs: int) -> Iterator[FileOutcome]:
    if jobs <= 1 or len(tasks) <= 1:
        for t in tasks:
            yield from scan_batch([t])
        return
    import multiprocessing

    # forkserver, not fork: the parent may hold threads (the deep-JSON decoder's), and a forked
    # child inherits their locks in whatever state they were
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["agentbisect.scan.one_file"])
    pool = ctx.Pool(min(jobs, len(tasks)))
    try:
        for outcomes in pool.imap_unordered(scan_batch, batches(tasks, jobs)):
            yield from outcomes
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def run_ray(tasks: list[FileTask], jobs: int, address: str | None) -> Iterator[FileOutcome]:
    """The batches as Ray tasks on the cluster at ``address`` (None: a local Ray instance of
    ``jobs`` CPUs, no dashboard, no usage statistics), at most a few per CPU in flight."""
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"  # before ray is imported: it reads it then too
    try:
        import ray
    except ImportError:
        raise UsageError(f"the ray engine needs Ray: {RAY_INSTALL}") from None
    started = False
    if not ray.is_initialized():
        try:
            if address is not None:
                ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
            else:
                ray.init(
                    num_cpus=jobs,
                    include_dashboard=False,
                    logging_level=logging.ERROR,
                    log_to_driver=False,
                )
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = address or "a local instance"
            raise UsageError(f"cannot start Ray at {where}: {str(exc).splitlines()[0]}") from None
        started = True
    try:
        remote = ray.remote(num_cpus=1)(scan_batch)
        cpus = int(ray.cluster_resources().get("CPU", jobs)) or 1
        limit = cpus * 4  # Ray's pattern for bounded pending tasks: ray.wait on the oldest
        todo = iter(batches(tasks, cpus))
        pending = []
        for batch in todo:
            pending.append(remote.remote(batch))
            if len(pending) >= limit:
                done, pending = ray.wait(pending, num_returns=1)
                yield from ray.get(done[0])
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield from ray.get(done[0])
    finally:
        if started:
            ray.shutdown()
