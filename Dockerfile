# The tool-eval-gate GitHub Action image: `python -m gate.github.entrypoint` reads the action's
# INPUT_* variables. Built for reproducibility and fast rebuilds:
# - the base image is pinned by digest (a tag moves; bump the digest deliberately, e.g. Dependabot's
#   docker ecosystem). BASE can be overridden for a local stand-in: --build-arg BASE=python:3.12-slim;
# - the dependencies come from requirements.lock (exact versions with hashes, wheels only) in a layer
#   of their own, rebuilt only when the lock changes;
# - the project's wheel is installed last, without dependencies: a code change rebuilds a small layer.
ARG BASE=python:3.12-slim@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea

FROM ${BASE} AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY gate ./gate
RUN python -m pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM ${BASE}
LABEL org.opencontainers.image.title="tool-eval-gate" \
      org.opencontainers.image.description="A CI gate for LLM agents' tool calls" \
      org.opencontainers.image.licenses="Apache-2.0"
ENV PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1
# git is needed for change detection (changed_only); nothing else from apt.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
# The dependency layer: only requirements.lock invalidates it.
COPY requirements.lock /tmp/requirements.lock
RUN python -m pip install --no-cache-dir --require-hashes --only-binary=:all: --no-deps --compile \
      -r /tmp/requirements.lock \
 && rm /tmp/requirements.lock \
 && python -c "import openai, anthropic, github, yaml, jsonschema, regex"
# The project's layer. Installing compiles every module to bytecode once, here, so that each action
# run starts from ready .pyc files; then nothing may write bytecode at run time (the workspace stays
# clean).
COPY --from=build /wheels /wheels
RUN python -m pip install --no-cache-dir --no-deps --compile /wheels/*.whl \
 && rm -rf /wheels \
 && python -m compileall -q "$(python -c 'import gate, os; print(os.path.dirname(gate.__file__))')" \
 && python -m pip check \
 && python -c "import gate.github.entrypoint, gate.commands.run"
ENV PYTHONDONTWRITEBYTECODE=1
ENTRYPOINT ["python", "-m", "gate.github.entrypoint"]
