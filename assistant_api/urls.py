from django.conf import settings
from django.contrib import admin
from django.urls import path
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerView

from accounts.views import UsageView
from assistant_api import views
from chats.urls import urlpatterns as chat_routes
from knowledge.catalog.urls import urlpatterns as catalog_routes
from knowledge.pdp.urls import urlpatterns as pdp_routes

# The console's title, and its "View site" link: the API reference (the site has no home page).
admin.site.site_header = "Shopping assistant console"
admin.site.site_title = "Shopping assistant console"
admin.site.index_title = "Console"
admin.site.site_url = "/docs/"
# The sidebar took a quarter of a 1366 px screen from every list; the home page and the
# breadcrumbs lead everywhere it did.
admin.site.enable_nav_sidebar = False

# Tried in order: the public PDP GET, the busiest route (every product page view), comes
# before the chat routes it would otherwise be tried against first.
urlpatterns = [
    *pdp_routes,
    *chat_routes,
    *catalog_routes,
    path("v1/usage", UsageView.as_view(), name="usage"),
    path("v1/openapi.json", SpectacularJSONAPIView.as_view(), name="openapi"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="openapi"), name="docs"),
    path("healthz", views.healthz),
    path("readyz", views.readyz),
    path("admin/", admin.site.urls),
]

if settings.DEMO_SHOP:
    from storefront import demo

    urlpatterns += [
        path("demo/", demo.shop_list, name="demo-shop"),
        path("demo/products/<str:item_id>", demo.shop_product, name="demo-product"),
        path("demo/session", demo.shop_session, name="demo-session"),
    ]

handler400 = "assistant_api.views.bad_request"
handler403 = "assistant_api.views.permission_denied"
handler404 = "assistant_api.views.not_found"
handler500 = "assistant_api.views.server_error"
