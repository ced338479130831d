import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { stringify as toYaml } from 'yaml';

/**
 * The API's OpenAPI 3.1 document (docs/api.md): a registry the routes describe themselves into
 * (RouteRegistrar), with the two ways to authenticate, and the document generated from it once, on
 * first read, as JSON and as YAML (GET /v3/api-docs, /v3/api-docs.yaml).
 */
export function openApiDocument(): {
  registry: OpenAPIRegistry;
  json: () => Record<string, unknown>;
  yaml: () => string;
} {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'Token from POST /api/auth/login or /api/auth/driver-login',
  });
  registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Api-Key',
  });
  let document: Record<string, unknown> | undefined;
  const json = () => {
    document ??= new OpenApiGeneratorV31(registry.definitions).generateDocument({
      openapi: '3.1.0',
      info: {
        title: 'Yard service API',
        version: '0.1.0',
        description:
          'Yard management and gate service for freight yards. Errors are RFC 9457 problem+json with a stable `code`. ' +
          'Lists take `limit` and `cursor` and answer `{items, nextCursor}`. Times are ISO 8601 UTC. Each operation lists the roles that may call it.',
      },
      servers: [{ url: '/' }],
    }) as unknown as Record<string, unknown>;
    return document;
  };
  let yamlText: string | undefined;
  return { registry, json, yaml: () => (yamlText ??= toYaml(json())) };
}
