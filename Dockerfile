FROM python:3.11-slim
WORKDIR /srv/kartu
# The pinned, hashed runtime dependencies first (their layer is rebuilt only when the
# lock changes), then kartu itself on top without resolving anything again.
COPY requirements-runtime.lock ./
RUN pip install --no-cache-dir --require-hashes -r requirements-runtime.lock
COPY pyproject.toml README.md ./
COPY app ./app
COPY engine ./engine
RUN pip install --no-cache-dir --no-deps --no-build-isolation .
COPY alembic.ini ./
COPY migrations ./migrations
COPY static ./static
EXPOSE 8000
CMD ["python", "-m", "app", "--host", "0.0.0.0", "--port", "8000"]
