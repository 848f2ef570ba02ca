"""The pages' catalog over HTTP: GET /i18n.json answers the catalog of the language yard chose
(--lang, the environment), else the browser's Accept-Language, else English; `?lang=xx` asks for
one (the pages keep their query string when they fetch it)."""
import json

from aiohttp import web

from host import i18n, refusals

_cache = {}


def choose_for(request):
    asked = i18n.parse(request.query.get("lang", ""))
    if asked:
        return asked
    return i18n.choose(None, accept=request.headers.get("Accept-Language")).lang


def gettext_for(request, message):
    """A message in the language of the request's page (a refusal worded for the browser that asked)."""
    return i18n.translations(choose_for(request)).gettext(message)


async def catalog(request):
    lang = choose_for(request)
    text = _cache.get(lang)
    if text is None:
        page = i18n.page_catalog(lang)
        table = refusals.page_table()  # the pages word the board's refusals too
        page["refusals"] = table["codes"]  # code -> msgid
        page["refusal_details"] = table["details"]  # why -> [msgid, [value names]]
        text = _cache[lang] = json.dumps(page, ensure_ascii=False)
    return web.Response(text=text, content_type="application/json", charset="utf-8")


def add_route(app):
    app.router.add_get("/i18n.json", catalog)
