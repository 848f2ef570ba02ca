"""The web servers' refusals in the language of the page that would have answered (the request's
Accept-Language): still refused, with the same status, worded from the catalog."""
import asyncio
import re
from unittest import mock

import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request

from host import i18n
from host.misterx.secretgame import SecretGame
from host.web import server
from host.web.mrxinput import PageInput, Said
from host.web.mrxpage import start_secret_page
from httpget import get


@pytest.fixture(autouse=True)
def no_language_from_the_environment(monkeypatch):
    """The pages take the browser's language when yard's environment names none."""
    for name in i18n.ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)


def test_the_secret_page_refuses_in_the_browsers_language(tmp_path):
    setup = {"type": "setup", "detectives": [13, 26], "bobbies": [29, 34], "mrx": 45, "two_player": True}
    sg = SecretGame.create(setup, folder=str(tmp_path))
    said = Said(out=lambda text: None)
    url, stop = start_secret_page(sg.path, PageInput(terminal=None, out=said), said)
    try:
        port = re.search(r":(\d+)/", url).group(1)
        evil = "evil.example:" + port
        assert get(url, "/", host=evil, language="de-DE,de;q=0.9") == (403, "Geheime Seite von Mister X: abgelehnt")
        assert get(url, "/", host=evil, language="ru") == (403, "Секретная страница Мистера Икс: отказано")
        assert get(url, "/", host=evil) == (403, "Mister X's secret page: refused")
        status, body = get(url, "/", language="de")
        assert status == 200 and "abgelehnt" not in body  # its own name: served
    finally:
        stop()


def _refused(request):
    async def handler(request):
        return web.Response(text="served")
    try:
        return asyncio.run(server._loopback_only(request, handler)).text
    except web.HTTPForbidden as e:
        return "403 " + e.text


def _request(remote, host, language, origin=None):
    transport = mock.Mock()
    transport.get_extra_info.side_effect = lambda name, default=None: {
        "peername": (remote, 50000), "sockname": ("127.0.0.1", 8765)}.get(name, default)
    headers = {"Host": host, "Accept-Language": language}
    if origin:
        headers["Origin"] = origin
    return make_mocked_request("GET", "/", headers=headers, transport=transport)


def test_the_simulated_boards_page_refuses_in_the_browsers_language():
    assert _refused(_request("192.168.1.9", "127.0.0.1:8765", "de")) == \
        "403 das simulierte Brett antwortet nur diesem Rechner"
    assert _refused(_request("127.0.0.1", "evil.example:8765", "fr")) == \
        "403 le plateau simulé ne répond qu'à sa propre adresse (Host 'evil.example:8765' refusé)"
    assert _refused(_request("127.0.0.1", "127.0.0.1:8765", "it", origin="http://evil.example")) == \
        "403 le richieste da un altro sito sono rifiutate (Origin 'http://evil.example')"
    assert _refused(_request("127.0.0.1", "127.0.0.1:8765", "de")) == "served"


def test_the_europe_view_refuses_in_the_browsers_language():
    from europe_games import TESTMAP
    from host.europe.mapformat import load_graph
    from host.europe.view import start_view
    url, stop = start_view([], load_graph(TESTMAP, "europe_testmap"), TESTMAP)
    try:
        port = re.search(r":(\d+)/", url).group(1)
        assert get(url, "/", host="evil.example:" + port, language="nl") == \
            (403, "de weergave antwoordt alleen deze computer")
        assert get(url, "/", host="evil.example:" + port) == (403, "the view serves this computer only")
        assert get(url, "/", language="nl")[0] == 200
    finally:
        stop()
