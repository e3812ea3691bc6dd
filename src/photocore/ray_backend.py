"""Self-play on a Ray cluster: batches of games as Ray tasks, streamed back in game order.

A failed task is retried (Ray's max_retries / retry_exceptions); since game i depends only
on (seed, i), a retried batch gives the very same games, so none is lost or duplicated.
Install with `pip install photocore[ray]`.
"""

import os


def _play_batch(series, start, count, fail_once_dir=None):
    if fail_once_dir is not None:
        # fault injection for tests: the first attempt of the first batch raises
        marker = os.path.join(fail_once_dir, f"failed-{start}")
        if start == 0 and not os.path.exists(marker):
            open(marker, "w").close()
            raise RuntimeError("injected failure of the first attempt of batch 0")
    return start, series.batch(start, count)


def run_ray(series, address=None, batch=None, skip=0, max_retries=3, fail_once_dir=None):
    """Yields (record lines, tallies) per batch for games skip .. games - 1, in order, from
    Ray tasks.

    Connects to the cluster at `address` (or the one RAY_ADDRESS names); without one,
    starts a local Ray instance on this machine's cores.
    """
    import ray

    from photocore.selfplay import batches, default_batch

    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    cpus = int(ray.cluster_resources().get("CPU", 1))
    size = batch or default_batch(series.specs, series.games - skip, cpus)
    todo = [(start + skip, count) for start, count in batches(series.games - skip, size)]
    task = ray.remote(num_cpus=1, max_retries=max_retries, retry_exceptions=True)(_play_batch)
    pending = {}
    done = {}
    window = 4 * cpus
    submitted = 0
    series_ref = ray.put(series)
    for start, _ in todo:
        while submitted < len(todo) and len(pending) < window:
            ref = task.remote(series_ref, *todo[submitted], fail_once_dir)
            pending[ref] = todo[submitted][0]
            submitted += 1
        # stream: take whatever finishes, hand out batches in game order
        while start not in done:
            ready, _ = ray.wait(list(pending), num_returns=1)
            finished, result = ray.get(ready[0])
            del pending[ready[0]]
            done[finished] = result
        yield done.pop(start)
