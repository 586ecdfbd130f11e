"""What a paginated table's template needs, and the query strings its links and the address bar carry."""


def pages(total, page_size):
    return max(1, -(-total // page_size))


def page_context(paged):
    """What a paginated table's template needs: the rows and the links around them."""
    return {
        "rows": paged.items,
        "total": paged.total,
        "total_is_exact": paged.total_is_exact,
        "page": paged.page,
        "pages": pages(paged.total, paged.page_size),
        "previous_page": paged.page - 1 if paged.page > 1 else None,
        "next_page": paged.page + 1 if paged.has_more else None,
    }


def in_use(query):
    """The filters of a query that hold a value: the address bar gets these, not every empty field of a form."""
    return [(name, value) for name, values in query.lists() for value in values if value]


def with_page(query, page):
    return f"{query}&page={page}" if query else f"page={page}"
