import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Adds .openapi() to zod schemas once, before any schema is built. Import `z` from here.
extendZodWithOpenApi(z);

export { z };
