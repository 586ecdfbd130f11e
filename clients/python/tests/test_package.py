"""The suite tests the package as an agent's project gets it: installed from the wheel, with no Django about."""

import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import historyhub_client


def test_django_cannot_be_imported_where_the_suite_runs():
    assert importlib.util.find_spec("django") is None
    with pytest.raises(ModuleNotFoundError):
        import django  # noqa: F401


def test_the_package_is_the_one_the_wheel_installed():
    distribution = importlib.metadata.distribution("historyhub-client")
    origin = json.loads(distribution.read_text("direct_url.json"))
    assert origin["url"].startswith("file://") and origin["url"].endswith(".whl")
    assert "dir_info" not in origin  # not an editable install, nor one from the source tree
    assert Path(historyhub_client.__file__).is_relative_to(sysconfig.get_paths()["purelib"])


def test_the_package_needs_httpx2_and_rfc8785_alone_and_each_sdk_only_for_its_extra():
    requirements = importlib.metadata.requires("historyhub-client")
    assert [requirement for requirement in requirements if "extra ==" not in requirement] == [
        "httpx2<3,>=2.16",
        "rfc8785<0.2,>=0.1.4",
    ]
    by_extra = {}
    for requirement in requirements:
        if "extra ==" in requirement:
            needed, extra = requirement.split(";")
            by_extra.setdefault(extra.split("==")[1].strip().strip("'\""), []).append(needed.strip())
    # Sorted, as the wheel's metadata lists them.
    by_extra = {extra: sorted(needed) for extra, needed in by_extra.items()}
    assert by_extra == {
        "agents": ["openai-agents<0.25,>=0.24"],
        "mcp": ["mcp<3,>=2.3"],
        "langgraph": ["langchain<2,>=1.5", "langgraph<2,>=1.2"],
        "verify": ["pyjwt[crypto]<3,>=2.10"],
    }


def test_the_wheel_ships_py_typed_so_type_checkers_read_the_packages_annotations():
    files = [str(path) for path in importlib.metadata.distribution("historyhub-client").files]
    assert "historyhub_client/py.typed" in files


def test_the_resume_mcp_and_verify_commands_are_installed_as_console_scripts():
    scripts = {
        point.name: point.value
        for point in importlib.metadata.entry_points(group="console_scripts")
        if point.dist.name == "historyhub-client"
    }
    assert scripts == {
        "historyhub-resume": "historyhub_client.resume:main",
        "historyhub-mcp": "historyhub_client.mcp_server:main",
        "historyhub-verify": "historyhub_client.verify:main",
    }


def test_historyhub_mcp_says_what_it_needs_without_its_configuration():
    done = subprocess.run(
        [str(Path(sys.executable).parent / "historyhub-mcp")],
        env={"PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.strip() == "historyhub-mcp needs HISTORYHUB_URL and HISTORYHUB_API_KEY in its environment."
