"""Reading HTML by what it means: elements by selector or role, their text and attributes, not their markup."""

from bs4 import BeautifulSoup, NavigableString, Tag

# Elements that flow within a line of text (those our pages use); any other element sets its text apart.
INLINE = {"a", "abbr", "b", "code", "em", "i", "mark", "q", "small", "span", "strong", "time"}


def parse(response):
    """The page a response answers (or an HTML string), ready to read."""
    markup = response if isinstance(response, str | bytes) else response.content
    return Html(BeautifulSoup(markup, "html.parser"))


def normalised(text):
    return " ".join(text.split())


class Html:
    """A page, or one element of it: what it holds, found by CSS selector or by role and name."""

    def __init__(self, node):
        self.node = node

    def __repr__(self):
        return str(self.node)[:500]

    def __eq__(self, other):
        """The same element of the page, not one that looks alike."""
        return isinstance(other, Html) and self.node is other.node

    def __hash__(self):
        return id(self.node)

    @property
    def tag(self):
        return self.node.name

    def __getitem__(self, attribute):
        value = self.node[attribute]
        return " ".join(value) if isinstance(value, list) else value

    def get(self, attribute, default=None):
        return self[attribute] if self.node.has_attr(attribute) else default

    @property
    def attributes(self):
        return self.node.attrs

    @property
    def classes(self):
        return self.node.get("class", [])

    @property
    def children(self):
        """The elements directly inside this one (of a fragment: its top-level elements), in order."""
        return [Html(child) for child in self.node.children if isinstance(child, Tag)]

    def all(self, css):
        return [Html(node) for node in self.node.select(css)]

    def one(self, css):
        """The single element ``css`` selects: none, or more than one, fails the test."""
        return single(self.all(css), css)

    def text(self, css=None):
        """The visible text, any run of white space (a no-break space too) as one space: of the element ``css``
        selects, or of this one."""
        node = self.one(css).node if css else self.node
        return normalised("".join(visible_strings(node)))

    def exact_text(self):
        """The text as written, line breaks and indentation kept (for <pre>, <textarea>, text with breaks)."""
        return self.node.get_text()

    def links(self, name=None, **attributes):
        """The links whose text is ``name`` and whose attributes have these values (``rel="next"``)."""
        return [link for link in self.all("a[href]") if named(link, name) and has(link, attributes)]

    def link(self, name=None, **attributes):
        """The one link ``links`` finds."""
        return single(self.links(name, **attributes), f"link {name!r} {attributes}")

    def buttons(self, name=None, **attributes):
        """The buttons (<button>, or <input type=submit>) labelled ``name`` whose attributes have these values."""
        return [
            button
            for button in self.all("button, input[type=submit]")
            if name in (None, button.text() if button.tag == "button" else button.get("value"))
            and has(button, attributes)
        ]

    def button(self, name, **attributes):
        """The one button ``buttons`` finds."""
        return single(self.buttons(name, **attributes), f"button {name!r} {attributes}")

    def field(self, name):
        """The one form field (input, select, textarea) named ``name``."""
        return single(self.all(f"input[name='{name}'], select[name='{name}'], textarea[name='{name}']"), name)

    def submitted(self, button=None):
        """What a browser sends for this form when ``button`` (one of its buttons, or none) submits it:
        {name: [values]} of its enabled fields, boxes only when ticked."""
        data = {}
        for field in self.all("input[name], textarea[name], select[name]"):
            kind = field.get("type", "text")
            if field.get("disabled") is not None or kind in ("submit", "button", "image", "reset"):
                continue
            if kind in ("checkbox", "radio") and field.get("checked") is None:
                continue
            if field.tag == "textarea":
                value = field.exact_text()
            elif field.tag == "select" and field.get("multiple") is not None:
                # A list box sends each chosen option, and nothing when none is.
                for option in field.all("option[selected]"):
                    data.setdefault(field["name"], []).append(option.get("value", option.text()))
                continue
            elif field.tag == "select":
                chosen = field.all("option[selected]") or field.all("option")[:1]
                value = chosen[0].get("value", chosen[0].text()) if chosen else ""
            else:
                value = field.get("value", "on" if kind in ("checkbox", "radio") else "")
            data.setdefault(field["name"], []).append(value)
        if button is not None and button.get("name"):
            data.setdefault(button["name"], []).append(button.get("value", ""))
        return data

    def terms(self):
        """A description list's terms and what they describe: {dt text: dd text}."""
        return {term.text(): Html(term.node.find_next_sibling("dd")).text() for term in self.all("dt")}


def visible_strings(node):
    """Text a person sees, a block's text apart from its neighbours' ("<dt>a</dt><dd>b</dd>" reads "a b");
    not comments, nor what <script> and <style> hold (bs4 gives those strings classes of their own)."""
    for child in node.children:
        if type(child) is NavigableString:
            yield child
        elif isinstance(child, Tag):
            apart = child.name not in INLINE
            yield " " if apart else ""
            yield from visible_strings(child)
            yield " " if apart else ""


def named(element, name):
    return name is None or element.text() == name


def has(element, attributes):
    return all(element.get(attribute.rstrip("_").replace("_", "-")) == value for attribute, value in attributes.items())


def single(found, what):
    assert len(found) == 1, f"{len(found)} elements match {what}: {found}"
    return found[0]
