"""The server carries no Python client: that is the package in clients/python, which agents install. The
server imports it in one place only: /mcp serves the package's MCP tools, so the stdio command and the
endpoint are one definition (historyhub/serving/mcp.py; requirements.txt and the image install the package)."""

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[1] / "historyhub"


def imported_modules(path):
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module


def test_only_the_mcp_endpoint_imports_the_client_package():
    importing = [
        str(path.relative_to(SERVER.parent))
        for path in sorted(SERVER.rglob("*.py"))
        if any(module.partition(".")[0] == "historyhub_client" for module in imported_modules(path))
    ]
    assert importing == ["historyhub/serving/mcp.py"]


def test_the_server_has_no_copy_of_the_client():
    assert not (SERVER / "client").exists()
