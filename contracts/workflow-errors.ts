import { ErrorCode, PlatformError } from "./errors.ts";
import type { Language } from "./messages.ts";

/**
 * Why the workflow refuses a call: each code is an `ecode` of the workflow API with its `errno`.
 * The hundreds say the kind: 404xx something named does not exist, 409xx the state forbids it,
 * 403xx the caller may not, 422xx the request does not fit the flow, 501xx not supported. Like
 * every semantic failure of spec 001, they answer HTTP 200 with the envelope.
 */
export const WORKFLOW_ERRNO = {
  TASK_NOT_FOUND: 40401,
  PROCESS_NOT_FOUND: 40402,
  APP_NOT_FOUND: 40403,
  VERSION_NOT_FOUND: 40404,
  USER_NOT_FOUND: 40405,
  THING_NOT_FOUND: 40406,
  PICKUP_NOT_FOUND: 40407,
  ENTRUST_NOT_FOUND: 40408,
  TEMPLATE_NOT_FOUND: 40409,
  TAG_NOT_FOUND: 40420,
  CODE_NOT_FOUND: 40421,
  MEMBERSHIP_NOT_FOUND: 40422,
  SETTING_NOT_FOUND: 40423,
  TASK_ALREADY_HANDLED: 40901,
  PROCESS_ENDED: 40902,
  PROCESS_SUSPENDED: 40903,
  PROCESS_NOT_SUSPENDED: 40904,
  PICKUP_USED: 40905,
  PROCESS_NOT_ENDED: 40906,
  REMINDER_NOT_CONFIGURED: 40907,
  IDEMPOTENCY_KEY_REUSED: 40908,
  CODE_TAKEN: 40920,
  NAME_TAKEN: 40921,
  NOT_A_CANDIDATE: 40301,
  SYSTEM_USER_NOT_ALLOWED: 40302,
  NOT_THE_INITIATOR: 40303,
  OTHERS_TOOK_PART: 40304,
  WITHDRAW_NOT_ALLOWED: 40305,
  APP_NOT_STARTABLE: 40306,
  WORKFLOW_MISMATCH: 40307,
  NOT_YOUR_OWN: 40308,
  NOT_AN_ADMINISTRATOR: 40309,
  NOT_A_STARTER: 40310,
  ACTION_REQUIRED: 42201,
  UNKNOWN_ACTION: 42202,
  REMARK_REQUIRED: 42203,
  THING_REQUIRED: 42204,
  NO_ROUTE: 42205,
  NO_ASSIGNEE: 42206,
  NEXT_STEPS_INVALID: 42207,
  UNKNOWN_ENTRANCE: 42208,
  DATA_INVALID: 42209,
  STEP_NOT_UNIQUE: 42210,
  SPLIT_PATH_INVALID: 42211,
  SUBPROCESS_TOO_DEEP: 42212,
  NO_RECIPIENT: 42213,
  NOT_SUPPORTED: 50101,
} as const;

export type WorkflowErrorCode = keyof typeof WORKFLOW_ERRNO;

/**
 * The Chinese text of each refusal, answered when `Accept-Language` prefers Chinese; English callers
 * get the refusal's own message, which names the particulars (the task, the field). A code added
 * above without its text here does not compile.
 */
export const WORKFLOW_REFUSAL_ZH = {
  TASK_NOT_FOUND: "任务不存在",
  PROCESS_NOT_FOUND: "流程实例不存在，或您未参与该流程",
  APP_NOT_FOUND: "工作流应用不存在",
  VERSION_NOT_FOUND: "工作流版本不存在",
  USER_NOT_FOUND: "用户不存在",
  THING_NOT_FOUND: "物品不存在",
  PICKUP_NOT_FOUND: "取件码不存在",
  ENTRUST_NOT_FOUND: "委托不存在",
  TEMPLATE_NOT_FOUND: "导出模板不存在或名称不唯一",
  TAG_NOT_FOUND: "标签不存在",
  CODE_NOT_FOUND: "代码项不存在",
  MEMBERSHIP_NOT_FOUND: "成员关系不存在",
  SETTING_NOT_FOUND: "设置不存在",
  TASK_ALREADY_HANDLED: "任务已处理或当前不可处理",
  PROCESS_ENDED: "流程已结束",
  PROCESS_SUSPENDED: "流程已挂起",
  PROCESS_NOT_SUSPENDED: "流程未挂起",
  PICKUP_USED: "取件码已使用或已过期",
  PROCESS_NOT_ENDED: "流程尚未结束",
  REMINDER_NOT_CONFIGURED: "租户未配置督办提醒",
  IDEMPOTENCY_KEY_REUSED: "该幂等键已用于另一个发起请求",
  CODE_TAKEN: "该代码在代码表中已存在",
  NAME_TAKEN: "该名称在租户中已被使用",
  NOT_A_CANDIDATE: "您不是该任务的处理人",
  SYSTEM_USER_NOT_ALLOWED: "该步骤不允许系统用户处理",
  NOT_THE_INITIATOR: "只有流程发起人可以执行此操作",
  OTHERS_TOOK_PART: "已有其他人参与该流程",
  WITHDRAW_NOT_ALLOWED: "该任务不能撤回",
  APP_NOT_STARTABLE: "该应用当前不能发起流程",
  WORKFLOW_MISMATCH: "该应用的令牌只能访问其自身的工作流",
  NOT_YOUR_OWN: "只能操作本人的委托",
  NOT_AN_ADMINISTRATOR: "需要管理员权限",
  NOT_A_STARTER: "您没有发起该应用流程的权限",
  ACTION_REQUIRED: "请指定处理动作",
  UNKNOWN_ACTION: "该步骤没有此处理动作",
  REMARK_REQUIRED: "该动作需要填写意见",
  THING_REQUIRED: "该步骤需要领取物品",
  NO_ROUTE: "没有符合条件的流转路径",
  NO_ASSIGNEE: "下一步骤没有处理人",
  NEXT_STEPS_INVALID: "nextSteps 与 nextUsers 无效",
  UNKNOWN_ENTRANCE: "入口不存在",
  DATA_INVALID: "表单数据无效",
  STEP_NOT_UNIQUE: "该步骤有多个待办任务，请指定 splitPath",
  SPLIT_PATH_INVALID: "splitPath 格式无效",
  SUBPROCESS_TOO_DEEP: "子流程嵌套层数过多",
  NO_RECIPIENT: "任务的处理人均无法通过提醒渠道送达",
  NOT_SUPPORTED: "不支持此操作",
} as const satisfies Record<WorkflowErrorCode, string>;

function platformCode(errno: number): ErrorCode {
  const kind = Math.floor(errno / 100);
  return kind === 404 ? ErrorCode.NotFound : kind === 409 ? ErrorCode.Conflict : ErrorCode.Unprocessable;
}

/** A refused workflow command; it changes nothing. */
export class WorkflowRefusal extends PlatformError {
  constructor(
    readonly refusal: WorkflowErrorCode,
    message: string,
  ) {
    super(platformCode(WORKFLOW_ERRNO[refusal]), message, {
      reason: { errno: WORKFLOW_ERRNO[refusal], ecode: refusal },
    });
    this.name = "WorkflowRefusal";
  }

  get errno(): number {
    return WORKFLOW_ERRNO[this.refusal];
  }

  /** The refusal's text in the caller's language: the catalogue's for Chinese, the detailed one for English. */
  messageIn(language: Language): string {
    return language === "zh" ? WORKFLOW_REFUSAL_ZH[this.refusal] : this.message;
  }
}
