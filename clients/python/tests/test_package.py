"""The suite tests the package as an agent's project gets it: installed from the wheel, with no Django about."""

import importlib.metadata
import importlib.util
import json
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


def test_the_package_needs_httpx2_alone_and_the_sdk_only_for_its_agents_extra():
    requirements = importlib.metadata.requires("historyhub-client")
    assert [requirement for requirement in requirements if "extra ==" not in requirement] == ["httpx2<3,>=2.16"]
    assert [requirement.split(";")[0].strip() for requirement in requirements if "extra ==" in requirement] == [
        "openai-agents<0.25,>=0.24"
    ]


def test_the_resume_command_is_installed_as_a_console_script():
    [script] = [
        point
        for point in importlib.metadata.entry_points(group="console_scripts")
        if point.dist.name == "historyhub-client"
    ]
    assert (script.name, script.value) == ("historyhub-resume", "historyhub_client.resume:main")
