"""One module per page, each exporting `routes: list[Route]`; `memory_apps.web.app` collects them."""
