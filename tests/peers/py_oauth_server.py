#!/usr/bin/env python3
"""An MCP server protected by the Python SDK's OAuth resource-server support (mcp 2.3.0).

  python py_oauth_server.py PORT ISSUER    -> http://127.0.0.1:PORT/mcp

The SDK answers a request without a valid token with 401 and a WWW-Authenticate challenge
naming its protected-resource metadata (RFC 9728), which it serves and which names ISSUER.
Tokens are JWTs the issuer signed (checked against its JWKS, with their expiry). `forget_my_token`
makes the server refuse the token it was called with from then on, as it would an expired one,
so a test can see a client refresh without waiting for a clock.
"""
import sys

import jwt
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer

port, issuer = int(sys.argv[1]), sys.argv[2]
jwks = jwt.PyJWKClient(f"{issuer}/jwks")
refused: set[str] = set()


class IssuerTokens:
    async def verify_token(self, token: str) -> AccessToken | None:
        if token in refused:
            return None
        try:
            key = jwks.get_signing_key_from_jwt(token).key
            claims = jwt.decode(token, key, algorithms=["RS256"], issuer=issuer, options={"verify_aud": False})
        except jwt.PyJWTError:
            return None
        scopes = str(claims.get("scope") or "").split()
        return AccessToken(token=token, client_id=str(claims.get("aud") or ""), scopes=scopes, expires_at=claims.get("exp"))


server = MCPServer(
    "peers-oauth",
    version="0.0.1",
    token_verifier=IssuerTokens(),
    auth=AuthSettings(
        issuer_url=issuer,
        resource_server_url=f"http://127.0.0.1:{port}/mcp",
        validate_token_resource=False,
    ),
)


@server.tool()
def add(a: float, b: float) -> str:
    """Add two numbers."""
    return str(a + b)


@server.tool()
def forget_my_token() -> str:
    """Refuse the token of this call from now on, as if it had expired."""
    token = get_access_token()
    if token is None:
        return "no token reached the tool"
    refused.add(token.token)
    return "forgotten"


server.run("streamable-http", host="127.0.0.1", port=port)
