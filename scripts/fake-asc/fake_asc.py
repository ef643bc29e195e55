#!/usr/bin/env python3
"""A fake App Store Connect API for the tests: stateful, in memory, the App Clip flows only.

Every request to /v1 is checked against Apple's App Store Connect API 4.4.1 specification (the
App Clip subset vendored beside this file, plus apps-supplement.openapi.json: see PROVENANCE.md)
with openapi-core, and more strictly than a schema alone: no member and no query parameter the
operation does not declare. A request that fails is answered like ASC would (400/415/422 with
`errors[]`) and counted; `GET /__fake/violations` must say 0 after every test. The bearer JWT is
verified with PyJWT against the public key given: ES256, header exactly alg/kid/typ, claims exactly
iss/iat/exp/aud, aud `appstoreconnect-v1`, `exp - iat` at most 20 minutes (Apple, "Generating
Tokens for API Requests").

Collections come in small pages (--page-size) with `links.next`; images go reserve -> upload
operations (PUT to unauthenticated URLs on this server) -> commit (PATCH uploaded + MD5
sourceFileChecksum) -> assetDeliveryState polled to COMPLETE (Apple, "Uploading Assets to App Store
Connect"). Processing takes --processing-seconds after the commit (a read before then says
UPLOAD_COMPLETE), or, with --processing-polls N, ends at the N-th read after the commit. An
advanced experience created or changed is processed too, --processing-seconds later: the state
Apple sets by itself changes (`status`, `placeStatus`, `version`, the order of its localizations),
as a clean push must not read as drift. As Apple does, a relationship's `data` is answered only
when the request names it in `include` (so never in the answer to a write).

Control endpoints (no authentication):
  POST /__fake/seed        {"resources": [{"type", "id"?, "attributes", "relationships": {name: id | [ids]}}]}
  GET  /__fake/state       every resource (removed ones with "removed": true), upload byte counts
  POST /__fake/faults      {"faults": [{"kind", "method"?, "path"? (regex), "times"? (1), ...}]}
       kinds: status (status, code, detail, pointer, retryAfter, rateLimit), stall (seconds),
              stallAfter (seconds: the request is carried out, then its answer waits),
              unauthorized (401 and the token presented is revoked), uploadFailure (a PUT part
              answers 500), corruptUpload (a part is stored with a flipped byte: the commit's MD5
              then mismatches), assetFailed (processing after commit ends FAILED),
              drop (the connection is closed without an answer, the request not carried out),
              dropAfter (carried out, then the connection is closed without an answer),
              statusAfter (carried out, then answered with `status`, 500 unless given: a write
              that landed behind an error)
  GET  /__fake/violations  {"count", "violations": [...]}
  GET  /__fake/requests    {"count", "requests": [{"method", "path", "status"}]}

A build bundle's domain status (`GET /v1/buildBundles/{id}/appClipDomainCacheStatus` and
`…/appClipDomainDebugStatus`) is the `appClipDomainStatuses` resource its relationship of that name
holds: seed one (attributes `domains`, `lastUpdatedDate`) and the bundle naming it; a bundle whose
relationship is unset answers 404.

Choices where Apple documents nothing (unverified against the live service): a removed advanced
experience disappears from lists and answers 404; an MD5 that does not match the bytes received
fails the commit with 409 ENTITY_ERROR and `source.pointer` /data/attributes/sourceFileChecksum; a
default experience has one App Clip review detail (a second create answers 409 ENTITY_ERROR), changed
only while its App Store version is editable.

Started as: fake_asc.py --public-key KEY.pem --key-id KID --issuer-id UUID [--port 0]; it prints
"fake-asc listening on PORT" once ready.
"""
import argparse
import base64
import hashlib
import json
import os
import re
import signal
import socket
import sys
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import jwt
from cryptography.hazmat.primitives import serialization
from openapi_core import OpenAPI
from openapi_core.contrib.werkzeug import WerkzeugOpenAPIRequest
from werkzeug.test import EnvironBuilder

HERE = Path(__file__).resolve().parent
APPLE_HOST = "https://api.appstoreconnect.apple.com"
# App Store versions whose metadata can still be edited (fastlane's "edit version" states).
EDITABLE_VERSION_STATES = {"PREPARE_FOR_SUBMISSION", "DEVELOPER_REJECTED", "REJECTED", "METADATA_REJECTED", "INVALID_BINARY"}
SCHEMA_OF_TYPE = {
    "apps": "App",
    "appClips": "AppClip",
    "appStoreVersions": "AppStoreVersion",
    "appClipAdvancedExperiences": "AppClipAdvancedExperience",
    "appClipAdvancedExperienceLocalizations": "AppClipAdvancedExperienceLocalization",
    "appClipAdvancedExperienceImages": "AppClipAdvancedExperienceImage",
    "appClipDefaultExperiences": "AppClipDefaultExperience",
    "appClipDefaultExperienceLocalizations": "AppClipDefaultExperienceLocalization",
    "appClipHeaderImages": "AppClipHeaderImage",
    "appClipAppStoreReviewDetails": "AppClipAppStoreReviewDetail",
    "builds": "Build",
    "buildBundles": "BuildBundle",
    "betaAppClipInvocations": "BetaAppClipInvocation",
    "betaAppClipInvocationLocalizations": "BetaAppClipInvocationLocalization",
    "appClipDomainStatuses": "AppClipDomainStatus",
}
# App Store Connect keeps at most three App Clip invocations per build (App Store Connect Help, "Test an App Clip").
INVOCATIONS_PER_BUILD = 3
IMAGE_TYPES = {"appClipAdvancedExperienceImages", "appClipHeaderImages"}


def load_spec():
    spec = json.loads((HERE / "app-store-connect-appclips.openapi.json").read_text())
    supplement = json.loads((HERE / "apps-supplement.openapi.json").read_text())
    spec["paths"].update(supplement["paths"])
    spec["components"]["schemas"].update(supplement["components"]["schemas"])
    return spec


class ASCError(Exception):
    def __init__(self, status, code, title, detail, pointer=None, parameter=None, headers=None):
        super().__init__(detail)
        self.status, self.code, self.title, self.detail = status, code, title, detail
        self.pointer, self.parameter, self.headers = pointer, parameter, headers or {}

    def body(self):
        error = {"id": str(uuid.uuid4()), "status": str(self.status), "code": self.code, "title": self.title, "detail": self.detail}
        if self.pointer is not None:
            error["source"] = {"pointer": self.pointer}
        elif self.parameter is not None:
            error["source"] = {"parameter": self.parameter}
        return {"errors": [error]}


def entity_error(detail, pointer, code="ENTITY_ERROR"):
    return ASCError(409, code, "The request entity is not valid.", detail, pointer=pointer)


def not_found(kind, ident):
    return ASCError(404, "NOT_FOUND", "The specified resource does not exist",
                    f"There is no resource of type '{kind}' with id '{ident}'")


class Fake:
    def __init__(self, args):
        self.spec = load_spec()
        self.api = OpenAPI.from_dict(self.spec)
        self.schemas = self.spec["components"]["schemas"]
        self.routes = self._routes()
        with open(args.public_key, "rb") as f:
            self.public_key = serialization.load_pem_public_key(f.read())
        self.key_id, self.issuer = args.key_id, args.issuer_id
        self.page_size, self.part_size, self.processing_polls = args.page_size, args.part_size, args.processing_polls
        self.check_responses = not args.no_response_check
        self.lock = threading.RLock()
        self.resources = {}  # (type, id) -> {"attributes": {}, "relationships": {name: id | [ids]}, "removed": bool}
        self.uploads = {}  # image id -> {offset: bytes}
        self.polls = {}  # image id -> GETs since commit
        self.processing_seconds = args.processing_seconds
        self.committed_at = {}  # image id -> time.monotonic() of its commit
        self.written_at = {}  # advanced experience id -> time.monotonic() of its create or update, until processed
        self.faults = []
        self.violations = []
        self.requests = []
        self.revoked = set()
        self.next_id = 1000
        self.base = ""  # http://127.0.0.1:PORT, set once listening

    # ---- routing -------------------------------------------------------------------------------

    def _routes(self):
        table = [
            ("GET", "/v1/apps", self.list_apps),
            ("GET", "/v1/apps/{id}/appClips", self.list_app_clips),
            ("GET", "/v1/apps/{id}/appStoreVersions", self.list_versions),
            ("GET", "/v1/appClips/{id}", self.get_resource("appClips")),
            ("GET", "/v1/appClips/{id}/appClipAdvancedExperiences", self.list_advanced),
            ("GET", "/v1/appClips/{id}/appClipDefaultExperiences", self.list_defaults),
            ("GET", "/v1/appClipAdvancedExperiences/{id}", self.get_resource("appClipAdvancedExperiences")),
            ("POST", "/v1/appClipAdvancedExperiences", self.create_advanced),
            ("PATCH", "/v1/appClipAdvancedExperiences/{id}", self.update_advanced),
            ("POST", "/v1/appClipAdvancedExperienceImages", self.reserve_image("appClipAdvancedExperienceImages")),
            ("GET", "/v1/appClipAdvancedExperienceImages/{id}", self.get_image("appClipAdvancedExperienceImages")),
            ("PATCH", "/v1/appClipAdvancedExperienceImages/{id}", self.commit_image("appClipAdvancedExperienceImages")),
            ("POST", "/v1/appClipHeaderImages", self.reserve_image("appClipHeaderImages")),
            ("GET", "/v1/appClipHeaderImages/{id}", self.get_image("appClipHeaderImages")),
            ("PATCH", "/v1/appClipHeaderImages/{id}", self.commit_image("appClipHeaderImages")),
            ("DELETE", "/v1/appClipHeaderImages/{id}", self.delete_resource("appClipHeaderImages")),
            ("POST", "/v1/appClipDefaultExperiences", self.create_default),
            ("GET", "/v1/appClipDefaultExperiences/{id}", self.get_resource("appClipDefaultExperiences")),
            ("PATCH", "/v1/appClipDefaultExperiences/{id}", self.update_default),
            ("DELETE", "/v1/appClipDefaultExperiences/{id}", self.delete_resource("appClipDefaultExperiences")),
            ("GET", "/v1/appClipDefaultExperiences/{id}/appClipDefaultExperienceLocalizations", self.list_default_localizations),
            ("POST", "/v1/appClipDefaultExperienceLocalizations", self.create_default_localization),
            ("GET", "/v1/appClipDefaultExperienceLocalizations/{id}", self.get_resource("appClipDefaultExperienceLocalizations")),
            ("PATCH", "/v1/appClipDefaultExperienceLocalizations/{id}", self.update_default_localization),
            ("DELETE", "/v1/appClipDefaultExperienceLocalizations/{id}", self.delete_resource("appClipDefaultExperienceLocalizations")),
            ("GET", "/v1/appStoreVersions/{id}/appClipDefaultExperience", self.version_default),
            ("GET", "/v1/appClipDefaultExperiences/{id}/appClipAppStoreReviewDetail", self.default_review_detail),
            ("POST", "/v1/appClipAppStoreReviewDetails", self.create_review_detail),
            ("GET", "/v1/appClipAppStoreReviewDetails/{id}", self.get_resource("appClipAppStoreReviewDetails")),
            ("PATCH", "/v1/appClipAppStoreReviewDetails/{id}", self.update_review_detail),
            ("GET", "/v1/builds", self.list_builds),
            ("GET", "/v1/buildBundles/{id}/betaAppClipInvocations", self.list_invocations),
            ("GET", "/v1/buildBundles/{id}/appClipDomainCacheStatus", self.domain_status("appClipDomainCacheStatus")),
            ("GET", "/v1/buildBundles/{id}/appClipDomainDebugStatus", self.domain_status("appClipDomainDebugStatus")),
            ("POST", "/v1/betaAppClipInvocations", self.create_invocation),
            ("GET", "/v1/betaAppClipInvocations/{id}", self.get_resource("betaAppClipInvocations")),
            ("DELETE", "/v1/betaAppClipInvocations/{id}", self.delete_invocation),
            ("POST", "/v1/betaAppClipInvocationLocalizations", self.create_invocation_localization),
            ("PATCH", "/v1/betaAppClipInvocationLocalizations/{id}", self.update_invocation_localization),
            ("DELETE", "/v1/betaAppClipInvocationLocalizations/{id}", self.delete_invocation_localization),
        ]
        compiled = []
        for method, template, handler in table:
            pattern = "^" + re.escape(template).replace(re.escape("{id}"), "(?P<id>[^/]+)") + "$"
            compiled.append((method, re.compile(pattern), template, handler))
        return compiled

    def route(self, method, path):
        for m, pattern, template, handler in self.routes:
            match = pattern.match(path)
            if match and m == method:
                return template, handler, match.groupdict().get("id")
        return None, None, None

    # ---- checks --------------------------------------------------------------------------------

    def violation(self, method, path, message):
        with self.lock:
            self.violations.append(f"{method} {path}: {message}")

    def check_request(self, method, path, query, headers, body, template):
        """Validates against the spec; returns an ASCError to answer with, or None."""
        builder = EnvironBuilder(method=method, base_url=APPLE_HOST, path=path, query_string=query, data=body,
                                 headers={k: v for k, v in headers.items() if k.lower() not in ("host", "content-length")})
        request = WerkzeugOpenAPIRequest(builder.get_request())
        try:
            self.api.validate_request(request)
        except Exception as error:  # openapi-core raises several kinds; each is a violation
            cause = error.__cause__
            detail = str(error)
            for schema_error in getattr(cause, "schema_errors", None) or []:
                detail += f" ({schema_error.message} at /{'/'.join(map(str, schema_error.absolute_path))})"
            self.violation(method, path, detail)
            if "content type" in detail.lower() or "MediaType" in type(error).__name__:
                return ASCError(415, "UNSUPPORTED_MEDIA_TYPE", "Unsupported media type", detail)
            if body is not None and "body" in detail.lower():
                return ASCError(422, "ENTITY_UNPROCESSABLE", "The request entity is not valid.", detail)
            return ASCError(400, "PARAMETER_ERROR.INVALID", "A parameter has an invalid value", detail)
        operation = self.spec["paths"][template]
        declared = {p["name"] for p in operation.get("parameters", []) + operation[method.lower()].get("parameters", [])}
        for name in urllib.parse.parse_qs(query, keep_blank_values=True):
            if name not in declared and name != "cursor":  # ASC's own next links carry cursor
                detail = f"'{name}' is not a parameter of {method} {template}"
                self.violation(method, path, detail)
                return ASCError(400, "PARAMETER_ERROR.ILLEGAL", "A parameter is not allowed", detail, parameter=name)
        if body is not None:
            request_schema = operation[method.lower()]["requestBody"]["content"]["application/json"]["schema"]
            unknown = self.unknown_members(json.loads(body), request_schema, "")
            if unknown:
                detail = "members the specification does not define: " + ", ".join(unknown)
                self.violation(method, path, detail)
                return ASCError(409, "ENTITY_ERROR.ATTRIBUTE.UNKNOWN", "The request entity is not valid.", detail, pointer=unknown[0])
        return None

    def resolve(self, schema):
        while "$ref" in schema:
            schema = self.schemas[schema["$ref"].split("/")[-1]]
        return schema

    def unknown_members(self, value, schema, pointer):
        """JSON pointers of object members the schema does not declare (the spec's schemas leave
        additionalProperties open; ASC rejects unknown attributes)."""
        schema = self.resolve(schema)
        if "oneOf" in schema and isinstance(value, dict):
            for branch in map(self.resolve, schema["oneOf"]):
                if value.get("type") in branch.get("properties", {}).get("type", {}).get("enum", []):
                    return self.unknown_members(value, branch, pointer)
            return []
        found = []
        if isinstance(value, dict) and "properties" in schema:
            for key, member in value.items():
                if key not in schema["properties"]:
                    if not schema.get("additionalProperties"):
                        found.append(f"{pointer}/{key}")
                else:
                    found += self.unknown_members(member, schema["properties"][key], f"{pointer}/{key}")
        elif isinstance(value, list) and "items" in schema:
            for index, item in enumerate(value):
                found += self.unknown_members(item, schema["items"], f"{pointer}/{index}")
        return found

    def check_response(self, method, path, query, status, document, template):
        if not self.check_responses or document is None:
            return
        responses = self.spec["paths"][template][method.lower()]["responses"]
        schema = responses.get(str(status), {}).get("content", {}).get("application/json", {}).get("schema")
        if schema is None:
            self.violation(method, path, f"the fake answered {status}, which the operation does not declare (fake bug)")
            return
        from openapi_schema_validator import OAS30Validator
        resolver_spec = {"components": self.spec["components"], **schema}
        errors = list(OAS30Validator(resolver_spec).iter_errors(document))
        unknown = self.unknown_members(document, schema, "")
        if errors or unknown:
            self.violation(method, path, f"the fake's own {status} answer does not match the spec (fake bug): "
                           f"{[e.message for e in errors][:3]} {unknown[:3]}")

    def check_token(self, authorization):
        if not authorization or not authorization.startswith("Bearer "):
            return "no bearer token"
        token = authorization[len("Bearer "):]
        if token in self.revoked:
            return "the token was revoked"
        try:
            header = jwt.get_unverified_header(token)
            if header != {"alg": "ES256", "kid": self.key_id, "typ": "JWT"}:
                return f"the header is not exactly alg/kid/typ for key {self.key_id}: {header}"
            claims = jwt.decode(token, self.public_key, algorithms=["ES256"], audience="appstoreconnect-v1", issuer=self.issuer,
                                options={"require": ["iss", "iat", "exp", "aud"]})
        except jwt.PyJWTError as error:
            return f"{type(error).__name__}: {error}"
        if sorted(claims) != ["aud", "exp", "iat", "iss"]:
            return f"the claims are not exactly iss/iat/exp/aud: {sorted(claims)}"
        if claims["exp"] - claims["iat"] > 1200:
            return f"the lifetime is {claims['exp'] - claims['iat']} s, over 20 minutes"
        return None

    def take_fault(self, kinds, method, path):
        with self.lock:
            for fault in self.faults:
                if fault["kind"] not in kinds or fault.get("times", 1) <= 0:
                    continue
                if fault.get("method") and fault["method"] != method:
                    continue
                if fault.get("path") and not re.search(fault["path"], path):
                    continue
                fault["times"] = fault.get("times", 1) - 1
                return dict(fault)
        return None

    # ---- resources -----------------------------------------------------------------------------

    def new_id(self):
        with self.lock:
            self.next_id += 1
            return str(self.next_id)

    def find(self, kind, ident, pointer=None):
        resource = self.resources.get((kind, ident))
        if resource is None or resource.get("removed"):
            if pointer is not None:
                raise entity_error(f"There is no {kind} with id '{ident}'", pointer, "ENTITY_ERROR.RELATIONSHIP.INVALID")
            raise not_found(kind, ident)
        return resource

    def of_type(self, kind, **relationships):
        found = []
        for (t, ident), resource in self.resources.items():
            if t != kind or resource.get("removed"):
                continue
            if all(resource["relationships"].get(name) == value for name, value in relationships.items()):
                found.append(ident)
        return found

    def related(self, kind, ident, name):
        """The visible resources a relationship of a resource names, as (type, id); None when the spec declares no
        linkage for it."""
        declared = self.schemas[SCHEMA_OF_TYPE[kind]]["properties"].get("relationships", {}).get("properties", {})
        if name not in declared or "data" not in declared[name].get("properties", {}):
            return None
        value = self.resources[(kind, ident)]["relationships"].get(name)
        data_schema = declared[name]["properties"]["data"]
        if data_schema.get("type") == "array":
            related = data_schema["items"]["properties"]["type"]["enum"][0]
            return [(related, i) for i in value or [] if self.visible(related, i)]
        related = data_schema["properties"]["type"]["enum"][0]
        return [(related, value)] if value is not None and self.visible(related, value) else []

    @staticmethod
    def include_names(query):
        return [n for n in query.get("include", [""])[0].split(",") if n]

    def render(self, kind, ident, linked=()):
        """A resource as ASC serializes it: a relationship's `data` only when the request names the relationship in
        `include` (a write cannot), as Apple's answers carry links only otherwise (zelentsov-dev/asc-mcp PR #6: "App
        Store Connect only includes a relationship's data linkage when the request explicitly asks for it")."""
        resource = self.resources[(kind, ident)]
        schema = self.schemas[SCHEMA_OF_TYPE[kind]]
        allowed = schema["properties"]["attributes"]["properties"]
        attributes = {k: v for k, v in resource["attributes"].items() if k in allowed and v is not None}
        relationships = {}
        declared = schema["properties"].get("relationships", {}).get("properties", {})
        for name in resource["relationships"]:
            items = self.related(kind, ident, name) if name in linked else None
            if items is None:
                continue
            if declared[name]["properties"]["data"].get("type") == "array":
                relationships[name] = {"data": [{"type": t, "id": i} for t, i in items]}
            elif items:
                relationships[name] = {"data": {"type": items[0][0], "id": items[0][1]}}
        document = {"type": kind, "id": ident, "attributes": attributes}
        if relationships:
            document["relationships"] = relationships
        document["links"] = {"self": f"{self.base}/v1/{kind}/{ident}"}
        return document

    def visible(self, kind, ident):
        resource = self.resources.get((kind, ident))
        return resource is not None and not resource.get("removed")

    def included(self, resources, include, query):
        """The `included` array for `include=` names, each related resource once."""
        names = self.include_names(query)
        seen, out = set(), []
        for kind, ident in resources:
            for name in names:
                for key in self.related(kind, ident, name) or []:
                    if key not in seen and key[0] in include:
                        seen.add(key)
                        out.append(self.render(*key))
        return out

    def single(self, kind, ident, query, include=(), status=200):
        document = {"data": self.render(kind, ident, self.include_names(query)), "links": {"self": f"{self.base}/v1/{kind}/{ident}"}}
        included = self.included([(kind, ident)], include, query)
        if included:
            document["included"] = included
        return status, document, {}

    def collection(self, kind, ids, path, query, include=()):
        limit = int(query.get("limit", ["50"])[0])
        size = min(limit, self.page_size)
        start = int(base64.urlsafe_b64decode(query["cursor"][0] + "==").decode()) if "cursor" in query else 0
        chunk = ids[start:start + size]
        self_link = f"{self.base}{path}" + ("?" + urllib.parse.urlencode({k: v[0] for k, v in query.items()}, safe="[],") if query else "")
        links = {"self": self_link}
        paging = {"total": len(ids), "limit": size}
        if start + size < len(ids):
            cursor = base64.urlsafe_b64encode(str(start + size).encode()).decode().rstrip("=")
            following = {k: v[0] for k, v in query.items() if k != "cursor"}
            following.update(cursor=cursor, limit=str(limit))
            links["next"] = f"{self.base}{path}?" + urllib.parse.urlencode(following, safe="[],")
            paging["nextCursor"] = cursor
        names = self.include_names(query)
        document = {"data": [self.render(kind, i, names) for i in chunk], "links": links, "meta": {"paging": paging}}
        included = self.included([(kind, i) for i in chunk], include, query)
        if included:
            document["included"] = included
        return 200, document, {}

    # ---- handlers ------------------------------------------------------------------------------

    @staticmethod
    def filter_values(query, name):
        return set(query[name][0].split(",")) if name in query else None

    def list_apps(self, ident, path, query, body):
        bundle_ids = self.filter_values(query, "filter[bundleId]")
        ids = [i for i in self.of_type("apps")
               if bundle_ids is None or self.resources[("apps", i)]["attributes"].get("bundleId") in bundle_ids]
        return self.collection("apps", ids, path, query)

    def list_app_clips(self, ident, path, query, body):
        self.find("apps", ident)
        bundle_ids = self.filter_values(query, "filter[bundleId]")
        ids = [i for i in self.of_type("appClips", app=ident)
               if bundle_ids is None or self.resources[("appClips", i)]["attributes"].get("bundleId") in bundle_ids]
        return self.collection("appClips", ids, path, query, include={"apps", "appClipDefaultExperiences"})

    def list_versions(self, ident, path, query, body):
        self.find("apps", ident)
        filters = {name: self.filter_values(query, f"filter[{name}]")
                   for name in ("platform", "versionString", "appStoreState", "appVersionState")}
        ids = [i for i in self.of_type("appStoreVersions", app=ident)
               if all(v is None or self.resources[("appStoreVersions", i)]["attributes"].get(n) in v for n, v in filters.items())]
        return self.collection("appStoreVersions", ids, path, query)

    def list_advanced(self, ident, path, query, body):
        self.find("appClips", ident)
        filters = {name: self.filter_values(query, f"filter[{name}]") for name in ("status", "placeStatus", "action")}
        ids = [i for i in self.of_type("appClipAdvancedExperiences", appClip=ident)
               if all(v is None or self.resources[("appClipAdvancedExperiences", i)]["attributes"].get(n) in v for n, v in filters.items())]
        return self.collection("appClipAdvancedExperiences", ids, path, query,
                               include={"appClips", "appClipAdvancedExperienceImages", "appClipAdvancedExperienceLocalizations"})

    def list_defaults(self, ident, path, query, body):
        self.find("appClips", ident)
        ids = self.of_type("appClipDefaultExperiences", appClip=ident)
        if "exists[releaseWithAppStoreVersion]" in query:
            wanted = query["exists[releaseWithAppStoreVersion]"][0] == "true"
            attached = lambda i: self.resources[("appClipDefaultExperiences", i)]["relationships"].get("releaseWithAppStoreVersion")
            ids = [i for i in ids if (attached(i) is not None) == wanted]
        return self.collection("appClipDefaultExperiences", ids, path, query,
                               include={"appClips", "appStoreVersions", "appClipDefaultExperienceLocalizations"})

    def list_default_localizations(self, ident, path, query, body):
        self.find("appClipDefaultExperiences", ident)
        ids = self.of_type("appClipDefaultExperienceLocalizations", appClipDefaultExperience=ident)
        if "filter[locale]" in query:
            locales = self.filter_values(query, "filter[locale]")
            ids = [i for i in ids if self.resources[("appClipDefaultExperienceLocalizations", i)]["attributes"].get("locale") in locales]
        return self.collection("appClipDefaultExperienceLocalizations", ids, path, query,
                               include={"appClipDefaultExperiences", "appClipHeaderImages"})

    def version_default(self, ident, path, query, body):
        self.find("appStoreVersions", ident)
        ids = self.of_type("appClipDefaultExperiences", releaseWithAppStoreVersion=ident)
        if not ids:
            raise not_found("appClipDefaultExperiences", f"of appStoreVersions {ident}")
        return self.single("appClipDefaultExperiences", ids[0], query,
                           include={"appClips", "appStoreVersions", "appClipDefaultExperienceLocalizations",
                                    "appClipAppStoreReviewDetails"})

    def get_resource(self, kind):
        def handler(ident, path, query, body):
            self.find(kind, ident)
            return self.single(kind, ident, query, include=set(SCHEMA_OF_TYPE))
        return handler

    def delete_resource(self, kind):
        def handler(ident, path, query, body):
            self.find(kind, ident)
            del self.resources[(kind, ident)]
            return 204, None, {}
        return handler

    @staticmethod
    def linkage(data, name, pointer_base="/data/relationships"):
        value = (data.get("relationships") or {}).get(name, {}).get("data")
        return value, f"{pointer_base}/{name}"

    def check_path_id(self, data, ident):
        if data.get("id") != ident:
            raise entity_error(f"The id '{data.get('id')}' in the body is not the id '{ident}' in the path", "/data/id")

    def create_advanced(self, ident, path, query, body):
        document = json.loads(body)
        data, attributes = document["data"], document["data"].get("attributes") or {}
        clip, pointer = self.linkage(data, "appClip")
        self.find("appClips", (clip or {}).get("id"), pointer)
        image, pointer = self.linkage(data, "headerImage")
        self.require_complete_image((image or {}).get("id"), pointer)
        link = attributes["link"]
        for other in self.of_type("appClipAdvancedExperiences", appClip=clip["id"]):
            if self.resources[("appClipAdvancedExperiences", other)]["attributes"]["link"] == link:
                raise entity_error(f"An advanced App Clip experience for '{link}' already exists", "/data/attributes/link",
                                   "ENTITY_ERROR.ATTRIBUTE.INVALID.DUPLICATE")
        localizations = self.inline_localizations(data, document.get("included") or [], required=True)
        languages = [self.resources[("appClipAdvancedExperienceLocalizations", i)]["attributes"].get("language") for i in localizations]
        if attributes.get("defaultLanguage") not in languages:
            for i in localizations:
                del self.resources[("appClipAdvancedExperienceLocalizations", i)]
            raise entity_error(f"No localization in the default language {attributes.get('defaultLanguage')}",
                               "/data/attributes/defaultLanguage")
        new = self.new_id()
        stored = {k: v for k, v in attributes.items() if v is not None}
        stored.update(version=1)  # status comes with processing (settle)
        if stored.get("place"):
            stored["placeStatus"] = "PENDING"
        self.written_at[new] = time.monotonic()
        self.resources[("appClipAdvancedExperiences", new)] = {
            "attributes": stored, "relationships": {"appClip": clip["id"], "headerImage": image["id"], "localizations": localizations}}
        return self.single("appClipAdvancedExperiences", new, {}, status=201)

    def require_complete_image(self, ident, pointer):
        image = self.find("appClipAdvancedExperienceImages", ident, pointer)
        state = (image["attributes"].get("assetDeliveryState") or {}).get("state")
        if state not in ("COMPLETE", "UPLOAD_COMPLETE"):
            raise entity_error(f"The image '{ident}' is {state}, not uploaded", pointer, "ENTITY_ERROR.RELATIONSHIP.INVALID")

    def inline_localizations(self, data, included, required):
        linkage, pointer = self.linkage(data, "localizations")
        if linkage is None:
            if required:
                raise entity_error("You must provide a value for the relationship 'localizations' with this request", pointer,
                                   "ENTITY_ERROR.RELATIONSHIP.REQUIRED")
            return None
        if required and not linkage:
            raise entity_error("At least one localization is required", pointer, "ENTITY_ERROR.RELATIONSHIP.REQUIRED")
        inline = {item.get("id"): (index, item) for index, item in enumerate(included)}
        ids = []
        for index, item in enumerate(linkage):
            if item["id"] in inline:
                _, resource = inline.pop(item["id"])
                new = self.new_id()
                self.resources[("appClipAdvancedExperienceLocalizations", new)] = {
                    "attributes": {k: v for k, v in (resource.get("attributes") or {}).items() if v is not None}, "relationships": {}}
                ids.append(new)
            elif ("appClipAdvancedExperienceLocalizations", item["id"]) in self.resources:
                ids.append(item["id"])
            else:
                raise entity_error(f"The localization '{item['id']}' is neither included nor existing", f"{pointer}/data/{index}/id")
        if inline:
            index, _ = next(iter(inline.values()))
            raise entity_error("An included resource is not referenced by a relationship", f"/included/{index}")
        return ids

    def update_advanced(self, ident, path, query, body):
        document = json.loads(body)
        data = document["data"]
        self.check_path_id(data, ident)
        resource = self.find("appClipAdvancedExperiences", ident)
        attributes = data.get("attributes") or {}
        image, pointer = self.linkage(data, "headerImage")
        if image is not None:
            self.require_complete_image(image.get("id"), pointer)
        localizations = self.inline_localizations(data, document.get("included") or [], required=False)
        if attributes.get("removed"):
            resource["removed"] = True
            return self.single_removed(ident)
        for key, value in attributes.items():
            if key != "removed" and value is not None:
                resource["attributes"][key] = value
        if image is not None:
            resource["relationships"]["headerImage"] = image["id"]
        if localizations is not None:
            resource["relationships"]["localizations"] = localizations
        resource["attributes"]["version"] = resource["attributes"].get("version", 1) + 1
        if resource["attributes"].get("place"):
            resource["attributes"]["placeStatus"] = "PENDING"
        self.written_at[ident] = time.monotonic()
        return self.single("appClipAdvancedExperiences", ident, {})

    def single_removed(self, ident):
        resource = self.resources[("appClipAdvancedExperiences", ident)]
        resource["removed"] = False  # rendered once more, as ASC answers a PATCH with the resource
        try:
            answer = self.single("appClipAdvancedExperiences", ident, {})
        finally:
            resource["removed"] = True
        answer[1]["data"]["attributes"]["status"] = "DEACTIVATED"
        return answer

    def reserve_image(self, kind):
        def handler(ident, path, query, body):
            data = json.loads(body)["data"]
            attributes = data["attributes"]
            relationships = {}
            if kind == "appClipHeaderImages":
                localization, pointer = self.linkage(data, "appClipDefaultExperienceLocalization")
                self.find("appClipDefaultExperienceLocalizations", (localization or {}).get("id"), pointer)
                if self.of_type("appClipHeaderImages", appClipDefaultExperienceLocalization=localization["id"]):
                    raise entity_error("The localization already has a header image; delete it first", pointer)
                relationships["appClipDefaultExperienceLocalization"] = localization["id"]
            size = attributes["fileSize"]
            if size <= 0:
                raise entity_error("fileSize must be positive", "/data/attributes/fileSize", "ENTITY_ERROR.ATTRIBUTE.INVALID")
            new = self.new_id()
            expires = int(time.time()) + 7 * 24 * 3600
            operations = []
            for index, offset in enumerate(range(0, size, self.part_size)):
                operations.append({"method": "PUT", "url": f"{self.base}/__upload/{new}/{index}?Expires={expires}",
                                   "length": min(self.part_size, size - offset), "offset": offset,
                                   "requestHeaders": [{"name": "Content-Type", "value": "application/octet-stream"}]})
            self.resources[(kind, new)] = {"attributes": {
                "fileName": attributes["fileName"], "fileSize": size, "uploadOperations": operations,
                "assetDeliveryState": {"state": "AWAITING_UPLOAD"}}, "relationships": relationships}
            self.uploads[new] = {}
            if kind == "appClipHeaderImages":
                self.resources[("appClipDefaultExperienceLocalizations", localization["id"])]["relationships"]["appClipHeaderImage"] = new
            return self.single(kind, new, {}, status=201)
        return handler

    def get_image(self, kind):
        def handler(ident, path, query, body):
            resource = self.find(kind, ident)
            if resource["attributes"]["assetDeliveryState"]["state"] == "UPLOAD_COMPLETE" and self.processing_polls is not None:
                self.polls[ident] = self.polls.get(ident, 0) + 1
                if self.polls[ident] >= self.processing_polls:
                    self.processed_image(kind, ident)
            return self.single(kind, ident, query, include=set(SCHEMA_OF_TYPE))
        return handler

    def processed_image(self, kind, ident):
        resource = self.resources[(kind, ident)]
        if resource.get("failAsset"):
            resource["attributes"]["assetDeliveryState"] = {"state": "FAILED", "errors": [
                {"code": "IMAGE_INCORRECT_DIMENSIONS", "description": "The image is not 1800x1200 pixels."}]}
        else:
            resource["attributes"]["assetDeliveryState"] = {"state": "COMPLETE"}
            resource["attributes"]["imageAsset"] = {
                "templateUrl": f"{self.base}/__image/{ident}/{{w}}x{{h}}bb.{{f}}", "width": 1800, "height": 1200}

    def settle(self):
        """What App Store Connect does by itself, --processing-seconds after a write, whoever reads: a committed image
        becomes COMPLETE (or FAILED; with --processing-polls, at its N-th read instead), and an advanced experience
        created or changed gets the state Apple sets while processing it, read-only to clients
        (../shared/docs/asc-api.md §8, §9): `status` RECEIVED, `placeStatus` MATCHED for one with a place, `version`
        counted on, and its localizations listed in another order. None of it is what a person edits."""
        now = time.monotonic()
        if self.processing_polls is None:
            for ident, committed in list(self.committed_at.items()):
                kind = next((k for k in IMAGE_TYPES if (k, ident) in self.resources), None)
                if kind is None or now - committed < self.processing_seconds:
                    continue
                del self.committed_at[ident]
                if self.resources[(kind, ident)]["attributes"]["assetDeliveryState"]["state"] == "UPLOAD_COMPLETE":
                    self.processed_image(kind, ident)
        for ident, written in list(self.written_at.items()):
            if now - written < self.processing_seconds:
                continue
            del self.written_at[ident]
            resource = self.resources.get(("appClipAdvancedExperiences", ident))
            if resource is None or resource.get("removed"):
                continue
            attributes = resource["attributes"]
            attributes["status"] = "RECEIVED"
            if attributes.get("place"):
                attributes["placeStatus"] = "MATCHED"
            attributes["version"] = attributes.get("version", 0) + 1
            resource["relationships"]["localizations"] = list(reversed(resource["relationships"].get("localizations") or []))

    def commit_image(self, kind):
        def handler(ident, path, query, body):
            data = json.loads(body)["data"]
            self.check_path_id(data, ident)
            resource = self.find(kind, ident)
            attributes = data.get("attributes") or {}
            if not attributes.get("uploaded"):
                return self.single(kind, ident, {})
            if resource["attributes"]["assetDeliveryState"]["state"] != "AWAITING_UPLOAD":
                raise entity_error("The image was already committed", "/data/attributes/uploaded")
            parts = self.uploads.get(ident, {})
            received = b"".join(parts[offset] for offset in sorted(parts))
            if len(received) != resource["attributes"]["fileSize"]:
                raise entity_error(f"Received {len(received)} bytes of {resource['attributes']['fileSize']}: the upload is incomplete",
                                   "/data/attributes/uploaded")
            checksum = attributes.get("sourceFileChecksum")
            if checksum != hashlib.md5(received).hexdigest():
                raise entity_error(f"The checksum {checksum} does not match the bytes received", "/data/attributes/sourceFileChecksum",
                                   "ENTITY_ERROR.ATTRIBUTE.INVALID")
            resource["attributes"]["sourceFileChecksum"] = checksum
            resource["attributes"]["assetDeliveryState"] = {"state": "UPLOAD_COMPLETE"}
            resource["attributes"].pop("uploadOperations", None)
            self.committed_at[ident] = time.monotonic()
            if self.take_fault({"assetFailed"}, "PATCH", path):
                resource["failAsset"] = True
            return self.single(kind, ident, {})
        return handler

    def create_default(self, ident, path, query, body):
        data = json.loads(body)["data"]
        clip, pointer = self.linkage(data, "appClip")
        self.find("appClips", (clip or {}).get("id"), pointer)
        relationships = {"appClip": clip["id"], "appClipDefaultExperienceLocalizations": []}
        version, pointer = self.linkage(data, "releaseWithAppStoreVersion")
        if version is not None:
            self.attach_version(version["id"], pointer)
            relationships["releaseWithAppStoreVersion"] = version["id"]
        template, pointer = self.linkage(data, "appClipDefaultExperienceTemplate")
        copied = {}
        if template is not None:
            copied = dict(self.find("appClipDefaultExperiences", template.get("id"), pointer)["attributes"])
        new = self.new_id()
        attributes = {**copied, **{k: v for k, v in (data.get("attributes") or {}).items() if v is not None}}
        self.resources[("appClipDefaultExperiences", new)] = {"attributes": attributes, "relationships": relationships}
        if template is not None:  # the template's localizations are copied (their images are not: upload again)
            for old in self.of_type("appClipDefaultExperienceLocalizations", appClipDefaultExperience=template["id"]):
                copy = self.new_id()
                self.resources[("appClipDefaultExperienceLocalizations", copy)] = {
                    "attributes": dict(self.resources[("appClipDefaultExperienceLocalizations", old)]["attributes"]),
                    "relationships": {"appClipDefaultExperience": new}}
                relationships["appClipDefaultExperienceLocalizations"].append(copy)
        return self.single("appClipDefaultExperiences", new, {}, status=201)

    def attach_version(self, version_id, pointer):
        version = self.find("appStoreVersions", version_id, pointer)
        state = version["attributes"].get("appVersionState")
        if state not in EDITABLE_VERSION_STATES:
            raise entity_error(f"The App Store version {version_id} is {state}; its App Clip default experience cannot be changed", pointer,
                               "ENTITY_ERROR.RELATIONSHIP.INVALID")
        if self.of_type("appClipDefaultExperiences", releaseWithAppStoreVersion=version_id):
            raise entity_error(f"The App Store version {version_id} already has a default App Clip experience", pointer)

    def update_default(self, ident, path, query, body):
        data = json.loads(body)["data"]
        self.check_path_id(data, ident)
        resource = self.find("appClipDefaultExperiences", ident)
        version, pointer = self.linkage(data, "releaseWithAppStoreVersion")
        if version is not None and resource["relationships"].get("releaseWithAppStoreVersion") != version["id"]:
            self.attach_version(version["id"], pointer)
            resource["relationships"]["releaseWithAppStoreVersion"] = version["id"]
        for key, value in (data.get("attributes") or {}).items():
            if value is not None:
                resource["attributes"][key] = value
        return self.single("appClipDefaultExperiences", ident, {})

    def create_default_localization(self, ident, path, query, body):
        data = json.loads(body)["data"]
        experience, pointer = self.linkage(data, "appClipDefaultExperience")
        self.find("appClipDefaultExperiences", (experience or {}).get("id"), pointer)
        attributes = {k: v for k, v in data["attributes"].items() if v is not None}
        for other in self.of_type("appClipDefaultExperienceLocalizations", appClipDefaultExperience=experience["id"]):
            if self.resources[("appClipDefaultExperienceLocalizations", other)]["attributes"]["locale"] == attributes["locale"]:
                raise entity_error(f"A localization for {attributes['locale']} already exists", "/data/attributes/locale")
        new = self.new_id()
        self.resources[("appClipDefaultExperienceLocalizations", new)] = {
            "attributes": attributes, "relationships": {"appClipDefaultExperience": experience["id"]}}
        parent = self.resources[("appClipDefaultExperiences", experience["id"])]
        parent["relationships"]["appClipDefaultExperienceLocalizations"].append(new)
        return self.single("appClipDefaultExperienceLocalizations", new, {}, status=201)

    def update_default_localization(self, ident, path, query, body):
        data = json.loads(body)["data"]
        self.check_path_id(data, ident)
        resource = self.find("appClipDefaultExperienceLocalizations", ident)
        for key, value in (data.get("attributes") or {}).items():
            if value is not None:
                resource["attributes"][key] = value
        return self.single("appClipDefaultExperienceLocalizations", ident, {})

    # ---- App Review: a default experience's App Clip review detail (asc-api.md §7.6 item 4) -------

    def default_review_detail(self, ident, path, query, body):
        experience = self.find("appClipDefaultExperiences", ident)
        detail = experience["relationships"].get("appClipAppStoreReviewDetail")
        if not self.visible("appClipAppStoreReviewDetails", detail):
            raise not_found("appClipAppStoreReviewDetails", f"of appClipDefaultExperiences {ident}")
        return self.single("appClipAppStoreReviewDetails", detail, query, include={"appClipDefaultExperiences"})

    def editable_default(self, experience_id, pointer):
        """A default experience whose App Store version is live takes no change (fastlane: "not editable in a live version")."""
        experience = self.find("appClipDefaultExperiences", experience_id, pointer)
        version = experience["relationships"].get("releaseWithAppStoreVersion")
        state = self.resources.get(("appStoreVersions", version), {}).get("attributes", {}).get("appVersionState")
        if version is not None and state not in EDITABLE_VERSION_STATES:
            raise entity_error(f"The App Store version {version} is {state}; its App Clip review detail cannot be changed", pointer,
                               "ENTITY_ERROR.RELATIONSHIP.INVALID")
        return experience

    def create_review_detail(self, ident, path, query, body):
        # One review detail per default experience (the relationship is to-one): a second create is refused, an unverified
        # choice that makes a create sent twice visible.
        data = json.loads(body)["data"]
        linked, pointer = self.linkage(data, "appClipDefaultExperience")
        experience = self.editable_default((linked or {}).get("id"), pointer)
        if self.visible("appClipAppStoreReviewDetails", experience["relationships"].get("appClipAppStoreReviewDetail")):
            raise entity_error(f"The default experience {linked['id']} already has an App Clip review detail", pointer)
        new = self.new_id()
        self.resources[("appClipAppStoreReviewDetails", new)] = {
            "attributes": {"invocationUrls": (data.get("attributes") or {}).get("invocationUrls")},
            "relationships": {"appClipDefaultExperience": linked["id"]}}
        experience["relationships"]["appClipAppStoreReviewDetail"] = new
        return self.single("appClipAppStoreReviewDetails", new, {}, status=201)

    def update_review_detail(self, ident, path, query, body):
        data = json.loads(body)["data"]
        self.check_path_id(data, ident)
        resource = self.find("appClipAppStoreReviewDetails", ident)
        self.editable_default(resource["relationships"].get("appClipDefaultExperience"), "/data/id")
        attributes = data.get("attributes") or {}
        if "invocationUrls" in attributes:
            resource["attributes"]["invocationUrls"] = attributes["invocationUrls"]
        return self.single("appClipAppStoreReviewDetails", ident, {})

    # ---- TestFlight: builds, build bundles, beta App Clip invocations ----------------------------

    def list_builds(self, ident, path, query, body):
        apps = self.filter_values(query, "filter[app]")
        versions = self.filter_values(query, "filter[version]")
        ids = [i for i in self.of_type("builds")
               if (apps is None or self.resources[("builds", i)]["relationships"].get("app") in apps)
               and (versions is None or self.resources[("builds", i)]["attributes"].get("version") in versions)]
        order = query.get("sort", [""])[0]
        if order.lstrip("-") in ("uploadedDate", "version"):
            ids.sort(key=lambda i: self.resources[("builds", i)]["attributes"].get(order.lstrip("-"), ""), reverse=order.startswith("-"))
        return self.collection("builds", ids, path, query, include={"buildBundles", "apps"})

    def domain_status(self, relationship):
        """A build bundle's domain status: the `appClipDomainStatuses` resource its `relationship` names (a test
        seeds both: `domains[]{domain, isValid, lastUpdatedDate, errorCode}`); 404 when it names none."""
        def handler(ident, path, query, body):
            bundle = self.find("buildBundles", ident)
            status = bundle["relationships"].get(relationship)
            if status is None:
                raise ASCError(404, "NOT_FOUND", "The specified resource does not exist",
                               f"There is no {relationship} for the build bundle '{ident}'")
            self.find("appClipDomainStatuses", status)
            return 200, {"data": self.render("appClipDomainStatuses", status), "links": {"self": f"{self.base}{path}"}}, {}
        return handler

    def list_invocations(self, ident, path, query, body):
        self.find("buildBundles", ident)
        ids = self.of_type("betaAppClipInvocations", buildBundle=ident)
        return self.collection("betaAppClipInvocations", ids, path, query, include={"betaAppClipInvocationLocalizations"})

    def create_invocation(self, ident, path, query, body):
        document = json.loads(body)
        data = document["data"]
        bundle, pointer = self.linkage(data, "buildBundle")
        found = self.find("buildBundles", (bundle or {}).get("id"), pointer)
        if found["attributes"].get("bundleType") != "APP_CLIP":
            raise entity_error(f"The build bundle {bundle['id']} is not an App Clip's", pointer, "ENTITY_ERROR.RELATIONSHIP.INVALID")
        if len(self.of_type("betaAppClipInvocations", buildBundle=bundle["id"])) >= INVOCATIONS_PER_BUILD:
            raise entity_error(f"A build's App Clip has at most {INVOCATIONS_PER_BUILD} invocations", "/data/relationships/buildBundle")
        linkage, pointer = self.linkage(data, "betaAppClipInvocationLocalizations")
        inline = {item.get("id"): item for item in document.get("included") or []}
        if not linkage:
            raise entity_error("At least one localization is required", pointer, "ENTITY_ERROR.RELATIONSHIP.REQUIRED")
        new = self.new_id()
        localizations = []
        for index, item in enumerate(linkage):
            resource = inline.pop(item["id"], None)
            if resource is None:
                raise entity_error(f"The localization '{item['id']}' is not included", f"{pointer}/data/{index}/id")
            made = self.new_id()
            self.resources[("betaAppClipInvocationLocalizations", made)] = {
                "attributes": dict(resource["attributes"]), "relationships": {"betaAppClipInvocation": new}}
            localizations.append(made)
        if inline:
            raise entity_error("An included resource is not referenced by a relationship", "/included/0")
        self.resources[("betaAppClipInvocations", new)] = {
            "attributes": {"url": data["attributes"]["url"]},
            "relationships": {"buildBundle": bundle["id"], "betaAppClipInvocationLocalizations": localizations}}
        return self.single("betaAppClipInvocations", new, {}, status=201)

    def delete_invocation(self, ident, path, query, body):
        resource = self.find("betaAppClipInvocations", ident)
        for localization in resource["relationships"]["betaAppClipInvocationLocalizations"]:
            self.resources.pop(("betaAppClipInvocationLocalizations", localization), None)
        del self.resources[("betaAppClipInvocations", ident)]
        return 204, None, {}

    def create_invocation_localization(self, ident, path, query, body):
        data = json.loads(body)["data"]
        invocation, pointer = self.linkage(data, "betaAppClipInvocation")
        parent = self.find("betaAppClipInvocations", (invocation or {}).get("id"), pointer)
        locale = data["attributes"]["locale"]
        for other in parent["relationships"]["betaAppClipInvocationLocalizations"]:
            if self.resources[("betaAppClipInvocationLocalizations", other)]["attributes"]["locale"] == locale:
                raise entity_error(f"A localization for {locale} already exists", "/data/attributes/locale")
        new = self.new_id()
        self.resources[("betaAppClipInvocationLocalizations", new)] = {
            "attributes": dict(data["attributes"]), "relationships": {"betaAppClipInvocation": invocation["id"]}}
        parent["relationships"]["betaAppClipInvocationLocalizations"].append(new)
        return self.single("betaAppClipInvocationLocalizations", new, {}, status=201)

    def update_invocation_localization(self, ident, path, query, body):
        data = json.loads(body)["data"]
        self.check_path_id(data, ident)
        resource = self.find("betaAppClipInvocationLocalizations", ident)
        if (data.get("attributes") or {}).get("title") is not None:
            resource["attributes"]["title"] = data["attributes"]["title"]
        return self.single("betaAppClipInvocationLocalizations", ident, {})

    def delete_invocation_localization(self, ident, path, query, body):
        resource = self.find("betaAppClipInvocationLocalizations", ident)
        parent = self.resources.get(("betaAppClipInvocations", resource["relationships"].get("betaAppClipInvocation")))
        if parent is not None:
            parent["relationships"]["betaAppClipInvocationLocalizations"].remove(ident)
        del self.resources[("betaAppClipInvocationLocalizations", ident)]
        return 204, None, {}

    # ---- uploads, images, control --------------------------------------------------------------

    def upload_part(self, path, headers, body):
        match = re.match(r"^/__upload/([^/]+)/(\d+)$", path)
        if not match:
            return 404, b"no such upload", {}
        ident, index = match.group(1), int(match.group(2))
        if headers.get("Authorization"):
            self.violation("PUT", path, "an upload operation's URL is unauthenticated: the request must not carry the JWT")
        kind = "appClipAdvancedExperienceImages" if ("appClipAdvancedExperienceImages", ident) in self.resources else "appClipHeaderImages"
        resource = self.resources.get((kind, ident))
        if resource is None or resource["attributes"]["assetDeliveryState"]["state"] != "AWAITING_UPLOAD":
            return 403, b"the upload is over", {}
        operation = resource["attributes"]["uploadOperations"][index]
        if len(body) != operation["length"]:
            self.violation("PUT", path, f"{len(body)} bytes sent for an operation of {operation['length']}")
            return 400, b"wrong length", {}
        if self.take_fault({"uploadFailure"}, "PUT", path):
            return 500, b"upload failed", {}
        if self.take_fault({"corruptUpload"}, "PUT", path):
            body = bytes([body[0] ^ 0xFF]) + body[1:]
        self.uploads[ident][operation["offset"]] = body
        return 200, b"", {}

    def image_bytes(self, path):
        match = re.match(r"^/__image/([^/]+)/", path)
        parts = self.uploads.get(match.group(1)) if match else None
        if not parts:
            return 404, b"no such image", {}
        return 200, b"".join(parts[offset] for offset in sorted(parts)), {"Content-Type": "image/png"}

    def seed(self, document):
        created = []
        for item in document.get("resources", []):
            ident = str(item.get("id") or self.new_id())
            self.resources[(item["type"], ident)] = {"attributes": dict(item.get("attributes") or {}),
                                                     "relationships": dict(item.get("relationships") or {})}
            if "bytesBase64" in item:
                self.uploads[ident] = {0: base64.b64decode(item["bytesBase64"])}
            created.append({"type": item["type"], "id": ident})
        return {"created": created}

    def state(self):
        resources = []
        for (kind, ident), resource in self.resources.items():
            entry = {"type": kind, "id": ident, "attributes": resource["attributes"], "relationships": resource["relationships"]}
            if resource.get("removed"):
                entry["removed"] = True
            if ident in self.uploads:
                entry["bytesReceived"] = sum(map(len, self.uploads[ident].values()))
            resources.append(entry)
        return {"resources": resources}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: Fake = None

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PATCH(self):
        self.handle_any("PATCH")

    def do_DELETE(self):
        self.handle_any("DELETE")

    def do_PUT(self):
        self.handle_any("PUT")

    def send(self, status, body, headers, content_type="application/json"):
        payload = body if isinstance(body, bytes) else (json.dumps(body).encode() if body is not None else b"")
        try:
            self.send_response(status)
            with self.fake.lock:
                remaining = max(0, 3600 - len(self.fake.requests))
            headers = {"X-Rate-Limit": f"user-hour-lim:3600;user-hour-rem:{remaining};", **headers}
            for name, value in headers.items():
                self.send_header(name, value)
            if payload or status not in (204, 304):
                self.send_header("Content-Type", headers.get("Content-Type", content_type))
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def handle_any(self, method):
        fake = self.fake
        url = urllib.parse.urlsplit(self.path)
        path, query_text = url.path, url.query
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items()}
        if path.startswith("/__fake/"):
            return self.control(method, path, body)
        if path.startswith("/__upload/"):
            with fake.lock:
                status, payload, extra = fake.upload_part(path, headers, body or b"")
                fake.requests.append({"method": method, "path": path, "status": status})
            return self.send(status, payload, extra, "text/plain")
        if path.startswith("/__image/"):
            with fake.lock:
                status, payload, extra = fake.image_bytes(path)
            return self.send(status, payload, extra)
        if fake.take_fault({"drop"}, method, path):
            with fake.lock:
                fake.requests.append({"method": method, "path": path, "status": None})
            return self.drop()
        status, document, extra = self.api(method, path, query_text, headers, body)
        with fake.lock:
            fake.requests.append({"method": method, "path": path, "status": status})
        if fake.take_fault({"dropAfter"}, method, path):
            return self.drop()
        after = fake.take_fault({"statusAfter"}, method, path)
        if after and status < 400:
            error = ASCError(after.get("status", 500), after.get("code", "UNEXPECTED_ERROR"), "An injected error",
                             after.get("detail", "The fake carried the request out, then was told to answer this way."))
            status, document, extra = error.status, error.body(), {}
        late = fake.take_fault({"stallAfter"}, method, path)
        if late:
            time.sleep(late.get("seconds", 5))
        self.send(status, document, extra)

    def drop(self):
        """Closes the connection without a byte of answer (the client sees the peer close, RFC 9112 §9.6)."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def api(self, method, path, query_text, headers, body):
        fake = self.fake
        template, handler, ident = fake.route(method, path)
        try:
            stall = fake.take_fault({"stall"}, method, path)
            if stall:
                time.sleep(stall.get("seconds", 5))
            problem = fake.check_token(headers.get("Authorization"))
            if problem:
                raise ASCError(401, "NOT_AUTHORIZED", "Authentication credentials are missing or invalid.",
                               f"Provide a properly configured and signed bearer token, and make sure that it has not expired. ({problem})")
            unauthorized = fake.take_fault({"unauthorized"}, method, path)
            if unauthorized:
                with fake.lock:
                    fake.revoked.add(headers["Authorization"][len("Bearer "):])
                raise ASCError(401, "NOT_AUTHORIZED", "Authentication credentials are missing or invalid.",
                               "Provide a properly configured and signed bearer token, and make sure that it has not expired.")
            if template is None:
                known = any(p.match(path) for _, p, _, _ in fake.routes) or path in fake.spec["paths"]
                fake.violation(method, path, "not an operation of the specification" if not known else "a method the fake does not serve")
                raise ASCError(404 if not known else 405, "PATH_ERROR" if not known else "METHOD_NOT_ALLOWED",
                               "The URL path is not valid", f"The path {path} with {method} is not an operation this API offers")
            error = fake.check_request(method, path, query_text, headers, body, template)
            if error:
                raise error
            fault = fake.take_fault({"status"}, method, path)
            if fault:
                extra = {}
                if fault.get("retryAfter") is not None:
                    extra["Retry-After"] = str(fault["retryAfter"])
                if fault.get("rateLimit") is not None:
                    extra["X-Rate-Limit"] = fault["rateLimit"]
                status = fault.get("status", 500)
                default_code = {429: "RATE_LIMIT_EXCEEDED", 409: "ENTITY_ERROR", 500: "UNEXPECTED_ERROR"}.get(status, "ERROR")
                raise ASCError(status, fault.get("code", default_code), fault.get("title", "An injected error"),
                               fault.get("detail", "The fake was told to answer this way."), pointer=fault.get("pointer"), headers=extra)
            query = urllib.parse.parse_qs(query_text, keep_blank_values=True)
            with fake.lock:
                fake.settle()
                status, document, extra = handler(ident, path, query, body)
            fake.check_response(method, path, query, status, document, template)
            return status, document, extra
        except ASCError as error:
            return error.status, error.body(), error.headers

    def control(self, method, path, body):
        fake = self.fake
        with fake.lock:
            if (method, path) == ("POST", "/__fake/seed"):
                return self.send(200, fake.seed(json.loads(body or b"{}")), {})
            if (method, path) == ("GET", "/__fake/state"):
                fake.settle()
                return self.send(200, fake.state(), {})
            if (method, path) == ("POST", "/__fake/faults"):
                fake.faults.extend(json.loads(body or b"{}").get("faults", []))
                return self.send(200, {"faults": len(fake.faults)}, {})
            if (method, path) == ("GET", "/__fake/violations"):
                return self.send(200, {"count": len(fake.violations), "violations": fake.violations}, {})
            if (method, path) == ("GET", "/__fake/requests"):
                return self.send(200, {"count": len(fake.requests), "requests": fake.requests}, {})
        self.send(404, {"error": f"no control endpoint {method} {path}"}, {})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--public-key", required=True, help="PEM public key the bearer JWTs must verify with")
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--issuer-id", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--page-size", type=int, default=2, help="largest page of a collection, whatever limit asks")
    parser.add_argument("--part-size", type=int, default=1024, help="bytes per upload operation")
    parser.add_argument("--processing-polls", type=int, default=None,
                        help="GETs of a committed image before it is COMPLETE (instead of --processing-seconds)")
    parser.add_argument("--processing-seconds", type=float, default=0.2,
                        help="seconds after its commit before an image is COMPLETE")
    parser.add_argument("--exit-with-stdin", action="store_true", help="exit when standard input ends (a test's lifetime)")
    parser.add_argument("--no-response-check", action="store_true", help="do not check the fake's own answers against the spec")
    args = parser.parse_args()
    fake = Fake(args)
    Handler.fake = fake
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    fake.base = f"http://127.0.0.1:{server.server_address[1]}"
    # A parent may start this with SIGTERM blocked or ignored (Foundation's Process does): exit on
    # SIGTERM all the same, and when standard input reaches its end (the parent closed it or died).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    if args.exit_with_stdin:
        threading.Thread(target=lambda: (sys.stdin.buffer.read(), os._exit(0)), daemon=True).start()
    print(f"fake-asc listening on {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
