FROM python:3.11-slim
WORKDIR /srv/kartu
COPY pyproject.toml README.md ./
COPY app ./app
COPY engine ./engine
RUN pip install --no-cache-dir .
COPY alembic.ini ./
COPY migrations ./migrations
COPY static ./static
EXPOSE 8000
CMD ["python", "-m", "app", "--host", "0.0.0.0", "--port", "8000"]
