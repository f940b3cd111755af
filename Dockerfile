# syntax=docker/dockerfile:1
# Two stages: wheels are built in the first, the second installs only them,
# so no compiler or pip cache reaches the image that runs.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY engine engine
COPY protocol protocol
COPY core core
COPY server server
COPY client client
COPY web web
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    FLOWERGARDEN_DB=/data/flowergarden.sqlite3
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --no-index --find-links=/wheels /wheels/flowergarden_race-*.whl \
    && rm -rf /wheels \
    && useradd --create-home --uid 10001 flowergarden \
    && mkdir /data && chown flowergarden /data
USER 10001
VOLUME ["/data"]
EXPOSE 8765
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=4)"]
ENTRYPOINT ["flowergarden-server"]
CMD ["--host", "0.0.0.0", "--port", "8765"]
