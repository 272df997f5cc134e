# The tool-eval-gate GitHub Action image: `python -m gate.github.entrypoint` reads the action's
# INPUT_* variables. Two stages: the first builds the project's wheel, the second installs it (and its
# dependencies, all available as wheels) without any build tool, cache or source tree left behind.
FROM python:3.12-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY gate ./gate
RUN python -m pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.12-slim
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
COPY --from=build /wheels /wheels
# Installing compiles every module to bytecode once, here, so that each action run starts from
# ready .pyc files; then nothing may write bytecode at run time (the workspace stays clean).
RUN python -m pip install --no-cache-dir --compile "$(echo /wheels/*.whl)[all]" \
 && rm -rf /wheels \
 && python -m compileall -q "$(python -c 'import gate, os; print(os.path.dirname(gate.__file__))')" \
 && python -c "import gate.github.entrypoint, gate.commands.run, openai, anthropic, github, yaml, jsonschema"
ENV PYTHONDONTWRITEBYTECODE=1
ENTRYPOINT ["python", "-m", "gate.github.entrypoint"]
