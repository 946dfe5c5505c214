// The SAML identity provider of @portcullis/testing, a child process started by saml-test-idp.ts:
// auth0's samlp on a plain node:http server on 127.0.0.1 (a free port, printed as `{"port":N}` on
// the first line of stdout). The configuration (argv[2], JSON) holds the entity id, the service
// provider it serves ({ entityId, acsUrl }) and two key pairs made by the parent with `selfsigned`:
// `idp`, its own, and `other`, a stranger's. The parent kills it; it also exits when its stdin
// closes, so it never outlives a test run that dies.
//
//   GET /sso?SAMLRequest=…&RelayState=…  answers an AuthnRequest (HTTP-Redirect binding) with the
//                                        auto-posting form of a SAMLResponse (InResponseTo set)
//   GET /idp-initiated?RelayState=…      the same form, unasked (no InResponseTo)
//   GET /metadata                        its metadata document (samlp's), as an IdP offers to download
//   POST /service-provider?entityId=…&acsUrl=…  registers another service provider in place of the
//                                        first (as an IdP's administrator does once a connection exists)
//   POST /user?email=…                   sets who is signed in at the IdP (default ada@example.com)
//
// The signed-in user and what a test needs to vary come from extra query parameters: `user` (the
// NameID and email address, in place of the one POST /user set), `sign` (assertion | response |
// both | none), `key` (idp | other), `audience`, `recipient`, `lifetime` (seconds).
import http from "node:http";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const samlp = require("samlp");

const config = JSON.parse(process.argv[2] ?? "{}");
const EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";

/** What a knob asks, with the defaults of a well-configured IdP. */
function settingsOf(query) {
  const sign = query.sign ?? "assertion";
  const pair = query.key === "other" ? config.keys.other : config.keys.idp;
  const email = query.user ?? config.user ?? "ada@example.com";
  return {
    issuer: config.entityId,
    cert: pair.cert,
    key: pair.key,
    signAssertion: sign === "assertion" || sign === "both",
    signResponse: sign === "response" || sign === "both",
    audience: query.audience ?? config.sp.entityId,
    recipient: query.recipient ?? config.sp.acsUrl,
    destination: config.sp.acsUrl,
    lifetimeInSeconds: Number(query.lifetime ?? 300),
    nameIdentifierFormat: EMAIL_FORMAT,
    RelayState: query.RelayState ?? "",
    user: {
      id: email,
      emails: [{ value: email }],
      displayName: "Ada Lovelace",
      name: { givenName: "Ada", familyName: "Lovelace" },
    },
  };
}

/** The two Express methods samlp's middleware calls, on a plain node:http response. */
function expressLike(res) {
  res.set = (name, value) => res.setHeader(name, value);
  res.send = (statusOrBody, body) => {
    if (typeof statusOrBody === "number") {
      res.statusCode = statusOrBody;
      res.end(body === undefined ? "" : String(body));
    } else {
      res.end(statusOrBody);
    }
  };
  return res;
}

function handle(req, res) {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const query = Object.fromEntries(url.searchParams);
  const fail = (status, text) => {
    res.statusCode = status;
    res.end(text);
  };
  if (req.method === "POST" && url.pathname === "/service-provider") {
    config.sp = { entityId: query.entityId, acsUrl: query.acsUrl };
    return fail(204, "");
  }
  if (req.method === "POST" && url.pathname === "/user") {
    config.user = query.email;
    return fail(204, "");
  }
  if (req.method === "GET" && url.pathname === "/metadata") {
    req.protocol = "http";
    req.originalUrl = req.url;
    return samlp.metadata({
      issuer: config.entityId,
      cert: config.keys.idp.cert,
      redirectEndpointPath: "/sso",
      postEndpointPath: "/sso",
    })(req, expressLike(res));
  }
  if (req.method !== "GET" || (url.pathname !== "/sso" && url.pathname !== "/idp-initiated")) {
    return fail(404, "not found");
  }
  if (url.pathname === "/sso" && !query.SAMLRequest) return fail(400, "SAMLRequest required");
  if (url.pathname === "/idp-initiated") delete query.SAMLRequest;
  const settings = settingsOf(query);
  req.query = query;
  const middleware = samlp.auth({
    ...settings,
    getUserFromRequest: () => settings.user,
    // A real IdP posts only to the ACS URL registered for the service provider.
    getPostURL: (_audience, requestDom, _req, callback) => {
      const asked = requestDom?.documentElement.getAttribute("AssertionConsumerServiceURL");
      if (asked && asked !== config.sp.acsUrl) return callback(new Error("unregistered ACS URL"));
      return callback(null, config.sp.acsUrl);
    },
  });
  middleware(req, expressLike(res), (error) => fail(500, String(error?.message ?? error)));
}

process.stdin.on("end", () => process.exit(0));
process.stdin.resume();

const server = http.createServer(handle);
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
