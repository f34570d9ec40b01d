# Production image: gunicorn with gevent workers, as a non-root user.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOST=0.0.0.0 \
    PORT=8000 \
    VAR_DIR=/app/var

WORKDIR /app
COPY requirements.lock ./
RUN pip install --no-cache-dir -r requirements.lock

COPY . .
RUN pip install --no-cache-dir --no-deps . \
    && SECRET_KEY=build python manage.py collectstatic --noinput -v 0 \
    && useradd --system --uid 10001 --home /app app \
    && mkdir -p /app/var && chown -R app /app/var

USER app
EXPOSE 8000
CMD ["gunicorn", "-c", "assistant_api/gunicorn.conf.py", "assistant_api.wsgi"]
