import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { userWords } from './zod-words.js';

// Adds .openapi() to zod schemas once, before any schema is built. Import `z` from here.
extendZodWithOpenApi(z);
// zod's default messages in people's words (zod-words.ts); a schema's own message still wins.
z.config({ customError: userWords });

export { z };
