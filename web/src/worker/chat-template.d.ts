// Types of chat-template.js.
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export class ChatTemplateError extends Error {
  readonly stage: 'parse' | 'render';
}

export interface CompiledTemplate {
  render(context: Record<string, unknown>): string;
}

export function compileChatTemplate(source: string): CompiledTemplate;

export function renderChat(
  template: string | CompiledTemplate,
  messages: readonly ChatMessage[],
  options?: { bosToken?: string; eosToken?: string; addGenerationPrompt?: boolean; dateString?: string },
): string;
