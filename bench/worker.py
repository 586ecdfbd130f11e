"""One measuring process: Django set up against the database the harness
prepared (its environment says which), one job, the result out as JSON.

    python -m bench.worker '<job as JSON>' RESULT.json

A job is the measures of one database, run one after the other (their rows),
or the seed of a data set (its facts). Streaming goes first: the memory it
reports for the SDK store's in-process read is then that of a process that
has not yet held another measure's data.
"""

import json
import sys
import time

STARTED = time.monotonic()


def progress(message):
    print(f"  {time.monotonic() - STARTED:6.1f} s  {message}", file=sys.stderr, flush=True)


def main(job_json, result_path):
    import django

    django.setup()
    from bench import measures
    from bench.plan import Job

    job = Job(**json.loads(job_json))
    if job.measures == ["seed"]:
        result = {"facts": measures.seed_data_set(job, progress)}
    else:
        order = sorted(job.measures, key=lambda name: name != "streaming")
        result = {"rows": {name: [row.as_json() for row in measures.run(name, job, progress)] for name in order}}
    with open(result_path, "w") as output:
        json.dump(result, output)


if __name__ == "__main__":
    main(*sys.argv[1:])
