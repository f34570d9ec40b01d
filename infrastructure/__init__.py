"""Database, cache and gevent runtime helpers the apps and the project's wiring build on.

Nothing here imports the apps or `assistant_api`: prepared and compiled queries, bulk statements
without prepared plans, SQL functions returning API text, model instances from cached values,
the pooled PostgreSQL backend, Redis health and window counters, and the gevent worker's habits.
"""
