"""One measuring process: Django set up against the database the harness
prepared (its environment says which), one job, the result out as JSON.

    python -m bench.worker '<job as JSON>' RESULT.json

A job is a measure (its rows) or the seed of a data set (its facts).
"""

import json
import sys


def progress(message):
    print(f"  … {message}", file=sys.stderr, flush=True)


def main(job_json, result_path):
    import django

    django.setup()
    from bench import measures
    from bench.plan import Job

    job = Job(**json.loads(job_json))
    if job.measure == "seed":
        result = {"facts": measures.seed_data_set(job, progress)}
    else:
        result = {"rows": [row.as_json() for row in measures.run(job, progress)]}
    with open(result_path, "w") as output:
        json.dump(result, output)


if __name__ == "__main__":
    main(*sys.argv[1:])
