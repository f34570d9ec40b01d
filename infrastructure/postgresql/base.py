"""Django's PostgreSQL backend, with a health check of pooled connections that costs nothing.

The pool must not lend a connection the server has closed (a restart, an idle timeout), or
the first request after it fails. psycopg_pool's check sends an empty query: one round trip
before every request's first query, a third of the database time of a request that needs one
query. But a server that ends a connection says so on its socket (a FATAL message
and end of file), while an idle pooled connection has nothing to read: pool connections never
LISTEN, and PostgreSQL speaks only when spoken to. So a connection whose socket is readable
when it is lent is handed back to be closed, and another one taken; one `select` with no
timeout, no round trip.
"""

from __future__ import annotations

import psycopg
from django.conf import settings
from django.db.backends.postgresql import base
from gevent import monkey

# gevent's select, even with a zero timeout, ends with gevent.sleep(0): every request's first
# query would give way to the other greenlets for a check that never waits. The system's
# select answers at once.
_select_now = monkey.get_original("select", "select")


def closed_by_server(connection: psycopg.Connection) -> bool:
    if connection.closed or connection.broken:
        return True
    readable, _, _ = _select_now([connection.fileno()], [], [], 0)
    return bool(readable)


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        if self.pool is None or not settings.DB_HEALTH_CHECKS:
            return connection
        # Each discarded connection is replaced by the pool; past max_size tries, the server
        # is refusing everything and the request fails on its first query as it would anyway.
        for _ in range(self.pool.max_size):
            if not closed_by_server(connection):
                break
            connection.close()
            self.pool.putconn(connection)
            connection = super().get_new_connection(conn_params)
        return connection
