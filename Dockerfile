# Production image: gunicorn with uvicorn workers (ASGI) behind your TLS proxy, static files by whitenoise.
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH="/opt/venv/bin:$PATH" \
    DATA_DIR=/data

RUN python -m venv /opt/venv
WORKDIR /app
# requirements.txt installs the Python client package from ./clients/python (/mcp serves its tools).
COPY requirements.txt /app/requirements.txt
COPY clients/python /app/clients/python
RUN pip install --no-cache-dir -r /app/requirements.txt

COPY manage.py ./
COPY bin ./bin
COPY historyhub ./historyhub
COPY templates ./templates
COPY static ./static
# collectstatic only reads files; these keys never reach a running container. It stamps what it
# collected, so bin/start finds the files current and does not collect them again.
RUN SECRET_KEY=collectstatic-only \
    FIELD_ENCRYPTION_KEYS="$(python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())')" \
    RECEIPT_SIGNING_KEYS="$(python -c 'import secrets; print(secrets.token_urlsafe(32))')" \
    python manage.py collectstatic --noinput

RUN useradd --system --uid 10001 --home-dir /app historyhub \
    && mkdir -p /data && chown historyhub /data
USER historyhub
VOLUME ["/data"]
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=6s --start-period=20s --retries=3 CMD ["python", "bin/healthcheck"]
CMD ["bin/start"]
