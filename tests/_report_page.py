"""The release report's pages, parsed: the tests of ``report()`` share this parser."""

from html.parser import HTMLParser

VOID = {"meta", "br", "hr", "img", "input", "link", "area", "base", "col", "wbr"}


class Page(HTMLParser):
    """Tags, attributes and text of a page; checks that every element closes in order."""

    def __init__(self, text):
        super().__init__()
        self.stack, self.tags, self.attrs, self.text, self.errors = [], [], [], [], []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += attrs
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += attrs

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def check_renders(page, n_plots=None, parser=Page):
    """Parse ``page`` with ``parser`` and check that it renders: balanced tags, no script,
    nothing loaded from elsewhere, and ``n_plots`` inline SVGs (None: not counted)."""
    parsed = parser(page)
    assert not parsed.errors and not parsed.stack, (parsed.errors, parsed.stack)
    assert page.startswith("<!DOCTYPE html>")
    assert "script" not in parsed.tags  # no script: no script error
    if n_plots is not None:
        assert parsed.tags.count("svg") == n_plots  # every plot present, inline
    assert "img" not in parsed.tags and "iframe" not in parsed.tags and "link" not in parsed.tags
    assert not [v for k, v in parsed.attrs if k in ("src", "href")]  # self-contained
    assert not [k for k, _ in parsed.attrs if k.startswith("on")]
    return parsed
