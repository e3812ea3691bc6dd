"""Self-play on a Ray cluster: batches of games as Ray tasks, streamed back in game order.

A failed task is retried (Ray's max_retries / retry_exceptions); since game i depends only
on (seed, i), a retried batch gives the very same games, so none is lost or duplicated.
Install with `pip install photocore[ray]`.
"""

def _play_batch(series, start, count):
    return start, series.batch(start, count)


def run_ray(series, address=None, batch=None, skip=0, max_retries=3):
    """Yields (record lines, Tally) per batch for games skip .. games - 1, in order, from
    Ray tasks.

    Connects to the cluster at `address` (or the one RAY_ADDRESS names); without one,
    starts a local Ray instance on this machine's cores. A task that still fails after
    `max_retries` retries ends the run with SelfPlayError after the batches before it;
    stopping early (an exception, KeyboardInterrupt, closing the generator) cancels the
    tasks in flight.
    """
    import ray

    from photocore.run.selfplay import SelfPlayError, batches, default_batch

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
    sizes = dict(todo)
    try:
        for start, _ in todo:
            while submitted < len(todo) and len(pending) < window:
                ref = task.remote(series_ref, *todo[submitted])
                pending[ref] = todo[submitted][0]
                submitted += 1
            # stream: take whatever finishes, hand out batches in game order
            while start not in done:
                ready, _ = ray.wait(list(pending), num_returns=1)
                first = pending.pop(ready[0])
                try:
                    finished, result = ray.get(ready[0])
                    done[finished] = result
                except ray.exceptions.RayError as e:
                    done[first] = e     # raised in its turn: the batches before it go out
            result = done.pop(start)
            if isinstance(result, ray.exceptions.RayError):
                cause = str(getattr(result, "cause", None) or result).strip().splitlines()
                raise SelfPlayError(
                    f"the Ray task playing games {start}..{start + sizes[start] - 1} failed "
                    f"{max_retries + 1} times ({type(result).__name__}: "
                    f"{cause[-1] if cause else 'no message'}): the run stopped there")
            yield result
    finally:
        for ref in pending:      # stopped early: nothing keeps playing for nobody
            try:
                ray.cancel(ref, force=True)
            except Exception:  # noqa: BLE001: a task that finished meanwhile
                pass
