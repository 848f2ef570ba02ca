"""One GET to a page `yard` serves, with the headers a test sets (a foreign Host or Origin, a
browser's language): (status, body text). The LAN page's certificate is made at its start, so no
authority knows it: https is read unverified."""
import http.client
import re
import ssl


def get(url, path, host=None, origin=None, language=None):
    m = re.match(r"(https?)://([^:/]+):(\d+)/", url)
    if m.group(1) == "https":
        c = http.client.HTTPSConnection(m.group(2), int(m.group(3)), timeout=5, context=ssl._create_unverified_context())
    else:
        c = http.client.HTTPConnection(m.group(2), int(m.group(3)), timeout=5)
    headers = {"Host": host or "%s:%s" % (m.group(2), m.group(3))}
    if origin:
        headers["Origin"] = origin
    if language:
        headers["Accept-Language"] = language
    try:
        c.request("GET", path, headers=headers)
        r = c.getresponse()
        return r.status, r.read().decode("utf-8", "replace")
    finally:
        c.close()
