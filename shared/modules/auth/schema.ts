import { ROLES, STAFF_ROLES, USER_ROLES } from '../../enums.js';
import { Id, IsoDateTime, PageQuery } from '../../http/common-schemas.js';
import { EXAMPLE_ID } from '../../http/examples.js';
import { z } from '../../http/zod.js';

export const StaffRoleEnum = z.enum(STAFF_ROLES);
export const RoleEnum = z.enum(ROLES);
/** The roles of a user login: staff, or carrier (bound to one carrier: `carrierId`). */
export const UserRoleEnum = z.enum(USER_ROLES);
const CarrierOfUser = Id.openapi({
  description: 'The carrier a carrier user is bound to (role carrier only; it never changes)',
});
const YardScope = z
  .array(Id)
  .max(500)
  .nullable()
  .openapi({ description: 'Yards this principal may see; null = every yard' });

export const LoginBody = z
  .object({ username: z.string().min(1).max(100), password: z.string().min(1).max(200) })
  .strict()
  .openapi('LoginRequest', {
    description: 'A staff user signs in; the answer carries the bearer token.',
    example: { username: 'gate.clerk', password: 'correct-horse-battery' },
  });

export const DriverLoginBody = z
  .object({
    driverCode: z.string().min(1).max(32),
    pin: z.string().regex(/^\d{4,8}$/, 'must be 4 to 8 digits'),
  })
  .strict()
  .openapi('DriverLoginRequest', {
    description: 'A yard driver signs in on the driver app with its code and PIN.',
    example: { driverCode: 'JOCKEY-7', pin: '4711' },
  });

export const PrincipalOut = z
  .object({
    kind: z.enum(['user', 'driver', 'api-key']),
    id: Id,
    name: z.string(),
    role: RoleEnum,
    yardIds: z.array(Id).nullable(),
    driverId: Id.optional(),
    carrierId: Id.optional().openapi({ description: 'Set for a carrier user: the one carrier it acts for' }),
  })
  .openapi('Principal');

export const TokenOut = z
  .object({
    token: z.string(),
    tokenType: z.literal('Bearer'),
    expiresAt: IsoDateTime,
    principal: PrincipalOut,
  })
  .openapi('TokenResponse');

export const UserOut = z
  .object({
    id: Id,
    username: z.string(),
    displayName: z.string().nullable(),
    role: UserRoleEnum,
    carrierId: CarrierOfUser.nullable(),
    yardIds: z.array(Id).nullable(),
    disabled: z.boolean(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    version: z.number().int(),
  })
  .openapi('User');

const Username = z
  .string()
  .min(2)
  .max(64)
  .regex(/^[A-Za-z0-9._@-]+$/, 'letters, digits and . _ @ - only');
const Password = z.string().min(10, 'at least 10 characters').max(200);

export const UserCreate = z
  .object({
    username: Username,
    displayName: z.string().max(120).optional(),
    role: UserRoleEnum,
    carrierId: CarrierOfUser.optional(),
    yardIds: YardScope.optional(),
    password: Password,
  })
  .strict()
  .refine((u) => (u.role === 'carrier') === (u.carrierId !== undefined), {
    message: 'Give the carrier for a carrier user, and only for a carrier user.',
    path: ['carrierId'],
  })
  .openapi('UserCreate', {
    description:
      'A new staff user, or a carrier user (role carrier with its carrierId; cloud only, never synced to sites); ' +
      'yardIds limits what it may see (null or left out: every yard).',
    example: {
      username: 'gate.clerk',
      displayName: 'Gate clerk, north gate',
      role: 'gate',
      yardIds: [EXAMPLE_ID.yard],
      password: 'correct-horse-battery',
    },
  });

export const UserPatch = z
  .object({
    displayName: z.string().max(120).nullable().optional(),
    role: UserRoleEnum.optional(),
    carrierId: CarrierOfUser.optional(),
    yardIds: YardScope.optional(),
    password: Password.optional(),
    disabled: z.boolean().optional(),
  })
  .strict()
  .openapi('UserPatch', {
    description:
      'Fields to change. A new password, role or yard scope, or disabling, signs the user out everywhere. ' +
      'A staff user stays staff and a carrier user stays with its carrier (400 role-kind-change).',
    example: { role: 'dispatcher', yardIds: [EXAMPLE_ID.yard] },
  });

export const UserListQuery = PageQuery.extend({
  role: UserRoleEnum.optional(),
  carrierId: Id.optional().openapi({ description: 'Only the carrier users of this carrier' }),
});

export const ApiKeyOut = z
  .object({
    id: Id,
    name: z.string(),
    role: StaffRoleEnum,
    yardIds: z.array(Id).nullable(),
    createdBy: z.string().nullable(),
    createdAt: IsoDateTime,
    revokedAt: IsoDateTime.nullable(),
  })
  .openapi('ApiKey');

export const ApiKeyCreated = ApiKeyOut.extend({
  key: z.string().openapi({ description: 'The secret key. Shown once; send it as X-Api-Key.' }),
}).openapi('ApiKeyCreated');

export const ApiKeyCreate = z
  .object({ name: z.string().min(1).max(120), role: StaffRoleEnum, yardIds: YardScope.optional() })
  .strict()
  .openapi('ApiKeyCreate', {
    description: 'A key for a machine client, with the role and yard scope it acts with.',
    example: { name: 'dock scheduler', role: 'viewer', yardIds: [EXAMPLE_ID.yard] },
  });

export type UserOutT = z.infer<typeof UserOut>;
export type ApiKeyOutT = z.infer<typeof ApiKeyOut>;
