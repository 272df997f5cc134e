"""GitHub integration: the Docker action's entrypoint, the Actions runner interface, the PR diff
parser and the publisher (sticky comment and review), the only module that imports PyGithub."""
