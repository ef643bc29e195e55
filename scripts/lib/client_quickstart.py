"""The README's quick start through a client generated from api/openapi.yaml, against a live server.

Usage: client_quickstart.py KIND GENERATED_DIR BASE_URL TOKEN
KIND is "openapi-python-client" (package clip_registry_client) or "openapi-generator" (package
clip_registry_og); GENERATED_DIR holds the package. Creates an experience, resolves a URL, lists,
fetches one, patches it with If-Match (and sees a stale If-Match refused with 412), sets applinks
components whose keys are "/", "?" and "#" (Apple's "Supporting associated domains"), reads the
banner and the AASA (served for the Host, and the preview). Each run uses its own host, so the two
kinds can share one server. Exits non-zero at the first answer that is not the documented one.
"""

import http.client
import json
import sys
from urllib.parse import urlencode, urlsplit

KIND, GENERATED, BASE, TOKEN = sys.argv[1:5]
sys.path.insert(0, GENERATED)
HOST = "bikes-" + KIND.replace("-", "") + ".example"
URL = f"https://{HOST}/rent"
CLIP = "ABCDE12345.com.example.bikes.Clip"
# Apple's component keys: a path, a query dictionary and a fragment, then an exclusion.
COMPONENTS = [
    {"/": "/rent/*", "?": {"id": "?*"}, "#": "top", "comment": "rentals"},
    {"/": "/admin/*", "exclude": True},
]


def expect(what, got, want):
    if got != want:
        sys.exit(f"client_quickstart {KIND}: {what}: got {got!r}, want {want!r}")
    print(f"  {what}: {got!r}")


def with_openapi_python_client():
    from clip_registry_client import AuthenticatedClient, Client
    from clip_registry_client.api.catalog import set_applinks
    from clip_registry_client.api.experiences import create_experience, get_experience, list_experiences, update_experience
    from clip_registry_client.api.public import banner, preview_aasa, resolve, served_aasa
    from clip_registry_client.models import (
        AASA, ApplinksComponent, ApplinksInput, ApplinksQueryItems, Banner, Category, Experience, ExperienceInput,
        ExperienceList, ExperiencePatch, Problem, Resolution, ResolutionMatch)

    client = AuthenticatedClient(base_url=BASE, token=TOKEN)
    created = create_experience.sync_detailed(client=client, body=ExperienceInput(
        url=URL, clip=CLIP, title="Rent a bike", subtitle="Unlock one in seconds", category=Category.BIKES))
    expect("create status", created.status_code, 201)
    assert isinstance(created.parsed, Experience), created.content
    experience = created.parsed
    expect("created version", experience.version, 1)

    resolution = resolve.sync(client=Client(base_url=BASE), url_query=URL + "?id=123")
    assert isinstance(resolution, Resolution), resolution
    expect("resolve matched", resolution.matched, ResolutionMatch.ADVANCED)
    expect("resolved experience", resolution.experience.id, experience.id)
    expect("Resolution model == the JSON", resolution.to_dict(), _resolution())

    listed = list_experiences.sync(client=client, host=HOST)
    assert isinstance(listed, ExperienceList), listed
    expect("list", [e.url for e in listed.items], [URL])

    fetched = get_experience.sync_detailed(client=client, id=experience.id)
    expect("get status", fetched.status_code, 200)
    etag = fetched.headers["etag"]
    expect("get title", fetched.parsed.title, "Rent a bike")

    patched = update_experience.sync_detailed(
        client=client, id=experience.id, if_match=etag, body=ExperiencePatch(subtitle="Ride in seconds"))
    expect("patch status", patched.status_code, 200)
    expect("patched subtitle", patched.parsed.subtitle, "Ride in seconds")
    stale = update_experience.sync_detailed(
        client=client, id=experience.id, if_match=etag, body=ExperiencePatch(subtitle="Too late"))
    expect("stale If-Match status", stale.status_code, 412)
    assert isinstance(stale.parsed, Problem), stale.content

    components = [ApplinksComponent.from_dict(c) for c in COMPONENTS]
    expect("component '?'", type(components[0]["?"]).__name__, ApplinksQueryItems.__name__)
    saved = set_applinks.sync_detailed(
        client=client, host=HOST, bundle_id="com.example.bikes", body=ApplinksInput(components=components))
    expect("set applinks status", saved.status_code, 200)
    expect("saved components", [c.to_dict() for c in saved.parsed.components], COMPONENTS)

    card = banner.sync(client=Client(base_url=BASE), url_query=URL)
    assert isinstance(card, Banner), card
    expect("banner clip", card.clip, CLIP)

    served = served_aasa.sync_detailed(client=Client(base_url=BASE, headers={"Host": HOST}))
    expect("served AASA status", served.status_code, 200)
    preview = preview_aasa.sync(client=Client(base_url=BASE), host=HOST)
    for name, aasa in (("served", served.parsed), ("preview", preview)):
        assert isinstance(aasa, AASA), aasa
        expect(f"{name} AASA appclips", aasa.appclips.apps, [CLIP])
        expect(f"{name} AASA components", [c.to_dict() for c in aasa.applinks.details[0].components], COMPONENTS)
    expect("AASA model == the served JSON", served.parsed.to_dict(), _served_aasa())
    expect("Experience model == the JSON", patched.parsed.to_dict(), json.loads(patched.content))


def with_openapi_generator():
    import clip_registry_og as og

    configuration = og.Configuration(host=BASE, access_token=TOKEN)
    api_client = og.ApiClient(configuration)
    experiences, public, catalog = og.ExperiencesApi(api_client), og.PublicApi(api_client), og.CatalogApi(api_client)

    created = experiences.create_experience_with_http_info(og.ExperienceInput(
        url=URL, clip=CLIP, title="Rent a bike", subtitle="Unlock one in seconds", category=og.Category.BIKES))
    expect("create status", created.status_code, 201)
    experience = created.data
    expect("created version", experience.version, 1)

    resolution = public.resolve(url=URL + "?id=123")
    expect("resolve matched", resolution.matched, og.ResolutionMatch.ADVANCED)
    expect("resolved experience", resolution.experience.id, experience.id)
    expect("Resolution model == the JSON", resolution.to_dict(), _resolution())

    listed = experiences.list_experiences(host=HOST)
    expect("list", [e.url for e in listed.items], [URL])

    fetched = experiences.get_experience_with_http_info(experience.id)
    expect("get status", fetched.status_code, 200)
    etag = fetched.headers["ETag"]
    expect("get title", fetched.data.title, "Rent a bike")

    patched = experiences.update_experience_with_http_info(
        experience.id, og.ExperiencePatch(subtitle="Ride in seconds"), if_match=etag)
    expect("patch status", patched.status_code, 200)
    expect("patched subtitle", patched.data.subtitle, "Ride in seconds")
    try:
        experiences.update_experience(experience.id, og.ExperiencePatch(subtitle="Too late"), if_match=etag)
        sys.exit(f"client_quickstart {KIND}: a stale If-Match was accepted")
    except og.ApiException as error:
        expect("stale If-Match status", error.status, 412)

    components = [og.ApplinksComponent.from_dict(c) for c in COMPONENTS]
    saved = catalog.set_applinks(HOST, "com.example.bikes", og.ApplinksInput(components=components))
    expect("saved components", [c.to_dict() for c in saved.components], COMPONENTS)

    card = public.banner(url=URL)
    expect("banner clip", card.clip, CLIP)

    served = public.served_aasa_with_http_info(_headers={"Host": HOST})
    expect("served AASA status", served.status_code, 200)
    preview = public.preview_aasa(HOST)
    for name, aasa in (("served", served.data), ("preview", preview)):
        expect(f"{name} AASA appclips", aasa.appclips.apps, [CLIP])
        expect(f"{name} AASA components", [c.to_dict() for c in aasa.applinks.details[0].components], COMPONENTS)
    expect("AASA model == the served JSON", _without_none(served.data.to_dict()), _served_aasa())
    expect("Experience model == the JSON", _without_none(patched.data.to_dict()), json.loads(patched.raw_data))


def _without_none(value):
    """openapi-generator's to_dict writes None for a nullable member (ApplinksDetails.defaults) that the JSON left out."""
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


def _get(path, headers):
    """The JSON of a GET as a plain HTTP client reads it: a model read and written back must equal it (no member lost)."""
    base = urlsplit(BASE)
    connection = http.client.HTTPConnection(base.hostname, base.port, timeout=10)
    connection.request("GET", path, headers=headers)
    answer = connection.getresponse()
    assert answer.status == 200, (path, answer.status)
    return json.loads(answer.read())


def _served_aasa():
    return _get("/.well-known/apple-app-site-association", {"Host": HOST})


def _resolution():
    return _get("/v1/resolve?" + urlencode({"url": URL + "?id=123"}), {})


print(f"client_quickstart {KIND}:")
{"openapi-python-client": with_openapi_python_client, "openapi-generator": with_openapi_generator}[KIND]()
print(f"client_quickstart {KIND}: passed")
