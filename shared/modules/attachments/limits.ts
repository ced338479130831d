import type { SettingsService } from '../settings/service.js';

export interface AttachmentLimits {
  maxBytes: number;
  allowedTypes: readonly string[];
}

/** The settings attachments.maxBytes and attachments.allowedTypes (defaults live in the settings registry). */
export async function attachmentLimits(settings: Pick<SettingsService, 'get'>): Promise<AttachmentLimits> {
  const [maxBytes, allowedTypes] = await Promise.all([
    settings.get('attachments.maxBytes'),
    settings.get('attachments.allowedTypes'),
  ]);
  return { maxBytes, allowedTypes };
}

/** Whether a detected type is allowed: listed exactly, or its family is listed as `type/*`. */
export function isAllowedType(contentType: string, allowedTypes: readonly string[]): boolean {
  const family = `${contentType.split('/')[0]}/*`;
  return allowedTypes.includes(contentType) || allowedTypes.includes(family);
}
