import { z } from "zod";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { bootstrapMembershipSchema, bootstrapTagSchema } from "../../contracts/tenant-data.ts";
import { SETTING_NAMES, SETTINGS, type SettingName } from "../../tenant/settings.ts";
import {
  setMembership,
  setSetting,
  setTag,
  tenantData,
  withdrawMembership,
  withdrawTag,
} from "../../tenant/tenant-admin.ts";
import type { GatewayUses } from "../gateway-env.ts";
import {
  type ConsoleApp,
  checked,
  consolePage,
  href,
  pageSession,
  redirectWith,
  render,
} from "./console-page.ts";
import { tenantDataView } from "./tenant-data-views.tsx";

const domainSchema = z.string().min(1).max(253);
const tagForm = bootstrapTagSchema.omit({ tenant: true }).extend({ domain: domainSchema });
const membershipForm = bootstrapMembershipSchema.omit({ tenant: true }).extend({ domain: domainSchema });
const settingForm = z.object({
  domain: domainSchema,
  name: z.enum(SETTING_NAMES as [SettingName, ...SettingName[]]),
  value: z.string().max(20_000),
});

/** Reads a JSON text of the form, refused (400) naming its field when it is not JSON. */
function jsonField(field: string, text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? "");
  } catch {
    throw new PlatformError(ErrorCode.InvalidArgument, `${field}: not JSON`);
  }
}

/** A tenant's tags, memberships and settings, made and removed as the admin API does. */
export function tenantDataPages(app: ConsoleApp, deps: GatewayUses<"db" | "log">) {
  const sql = deps.db.sql;
  const page = (domain: string) => href("/console/tenants/data", { domain });
  const done = (c: Parameters<typeof redirectWith>[0], domain: string, text: string) =>
    redirectWith(c, page(domain), { kind: "done", text });

  consolePage(app, "/tenants/data", {
    get: async (c) => {
      const domain = checked(domainSchema, c.req.query("domain"), "domain");
      const data = await tenantData(sql, domain);
      return render(c, tenantDataView({ session: pageSession(c), domain, ...data }));
    },
  });

  consolePage(app, "/tenants/data/tag", {
    post: async (c) => {
      const form = c.get("form");
      const { domain, ...tag } = checked(tagForm, {
        domain: form.get("domain"),
        name: form.get("name"),
        index: Number(form.get("index") || 0),
        palette: form.get("palette") || undefined,
        description: form.get("description") || undefined,
        visible: form.get("visible") === "true",
      });
      await setTag(sql, domain, tag);
      deps.log.info({ tenant: domain, tag: tag.name }, "tag saved in the console");
      return done(c, domain, `Tag ${tag.name} is saved.`);
    },
  });

  consolePage(app, "/tenants/data/remove-tag", {
    post: async (c) => {
      const form = c.get("form");
      const domain = checked(domainSchema, form.get("domain"), "domain");
      const name = checked(bootstrapTagSchema.shape.name, form.get("name"), "name");
      await withdrawTag(sql, domain, name);
      deps.log.info({ tenant: domain, tag: name }, "tag removed in the console");
      return done(c, domain, `Tag ${name} is removed.`);
    },
  });

  consolePage(app, "/tenants/data/membership", {
    post: async (c) => {
      const form = c.get("form");
      const { domain, ...membership } = checked(membershipForm, {
        domain: form.get("domain"),
        provider: form.get("provider"),
        code: form.get("code"),
        name: form.get("name") || undefined,
        uri: form.get("uri") || undefined,
        attributes: jsonField("attributes", form.get("attributes") || "{}"),
      });
      await setMembership(sql, domain, membership);
      deps.log.info({ tenant: domain, provider: membership.provider }, "membership saved in the console");
      return done(c, domain, `The membership of ${membership.provider} is saved.`);
    },
  });

  consolePage(app, "/tenants/data/remove-membership", {
    post: async (c) => {
      const form = c.get("form");
      const domain = checked(domainSchema, form.get("domain"), "domain");
      const provider = checked(bootstrapMembershipSchema.shape.provider, form.get("provider"), "provider");
      await withdrawMembership(sql, domain, provider);
      deps.log.info({ tenant: domain, provider }, "membership removed in the console");
      return done(c, domain, `The membership of ${provider} is removed.`);
    },
  });

  consolePage(app, "/tenants/data/setting", {
    post: async (c) => {
      const form = c.get("form");
      const { domain, name, value } = checked(settingForm, {
        domain: form.get("domain"),
        name: form.get("name"),
        value: form.get("value"),
      });
      const given = jsonField("value", value);
      const parsed = given === null ? null : checked(SETTINGS[name].schema, given, "value");
      await setSetting(sql, domain, name, parsed);
      deps.log.info({ tenant: domain, setting: name }, "setting saved in the console");
      return done(c, domain, parsed === null ? `${name} is removed.` : `${name} is saved.`);
    },
  });
}
