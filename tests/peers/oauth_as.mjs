// A real OAuth 2 authorization server for the OAuth tests: oauth2-mock-server (npm), with an
// RS256 key, authorization code + PKCE, refresh tokens and OpenID Connect discovery. Its
// /authorize answers at once with a redirect (no login page), so a test can drive the browser
// step by following that redirect. Prints `issuer URL` on stdout once it listens.
//
//   node oauth_as.mjs [PORT]      (0 or none: a free port)
import { randomUUID } from 'node:crypto';
import { Events, OAuth2Server } from 'oauth2-mock-server';

const server = new OAuth2Server();
await server.issuer.keys.generate('RS256');
// Each token is its own, as a real server's are: without a jti, two tokens issued in the same
// second for the same claims would be the same string.
server.service.on(Events.BeforeTokenSigning, (token) => {
  token.payload.jti = randomUUID();
});
await server.start(Number(process.argv[2] ?? 0), '127.0.0.1');
console.log(`issuer ${server.issuer.url}`);
