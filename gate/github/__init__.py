"""GitHub integration: the Docker action's entrypoint, the Actions runner interface, the PR diff
parser and the publisher (sticky comment and review), the only module that imports PyGithub."""

__all__: list[str] = []  # nothing: the action runs ``python -m gate.github.entrypoint``
