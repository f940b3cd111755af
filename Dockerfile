# The race server's image: `make image` (docker or podman), docs/operating.md.
#
# The base: Python 3.11 on Debian 12 (bookworm), pinned by digest so that two builds
# start from the same bytes. The tag says what the digest is; the digest is what is
# pulled. docs/operating.md ("The base image") says how to move it to a newer one,
# and PYTHON_IMAGE=... (`make image PYTHON_IMAGE=...`) builds on another.
ARG PYTHON_IMAGE=python:3.11.16-slim-bookworm@sha256:528257d48c1da0dcecc2e725d1ae34498d60c965f1241e39cd6a85a8859bdf84

# Stage one builds a wheel of the project and downloads its dependencies' wheels, at
# the versions of constraints.txt (setuptools, which builds it, included: hence
# PIP_CONSTRAINT, which reaches pip's isolated build too). Nothing of this stage
# reaches the image but the wheels, and those only through a mount.
FROM ${PYTHON_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    PIP_CONSTRAINT=/src/constraints.txt
WORKDIR /src
COPY pyproject.toml constraints.txt README.md LICENSE ./
COPY engine engine
COPY protocol protocol
COPY core core
COPY server server
COPY client client
COPY web web
# Without extras: the terminal client's dependencies (the `client` extra) stay out.
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

# Stage two installs the wheels from a bind mount of stage one, so that they are in
# no layer of the image, and only from them: no index is asked.
FROM ${PYTHON_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    FLOWERGARDEN_DB=/data/flowergarden.sqlite3
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index --find-links=/wheels /wheels/flowergarden_race-*.whl \
    && useradd --create-home --uid 10001 flowergarden \
    && mkdir /data && chown flowergarden /data
# /data holds the SQLite file. No VOLUME here: it would make an anonymous volume at
# every `docker run` and leave it behind; mount a named one instead,
# `-v flowergarden-data:/data` (docs/operating.md). With --db postgresql://... the
# server keeps nothing on disk.
USER 10001
EXPOSE 8765
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=4)"]
ENTRYPOINT ["flowergarden-server"]
CMD ["--host", "0.0.0.0", "--port", "8765"]
