// The names the page gives a model's parts, as the literature spells them: one table the model panel and the
// flow diagram share.

const NICE: Record<string, string> = { rmsnorm: 'RMSNorm', layernorm: 'LayerNorm', rope: 'RoPE', learned: 'learned positions', silu: 'SiLU', gelu: 'GELU', relu: 'ReLU' };
export const niceName = (name: string) => NICE[name.toLowerCase()] ?? name;
/** Where the norms sit, named as the literature does: Pre-LN (before each sub-block, on its input), Post-LN
 * (after each residual add, as the original Transformer and BERT), sandwich (both, on each sub-block). */
export function placementName(placement: string, norm: string): string {
  if (placement === 'post') return `Post-LN (${norm} after each residual add)`;
  if (placement === 'sandwich') return `sandwich (${norm} before and after each sub-block)`;
  return `Pre-LN (${norm} before each sub-block)`;
}
const GATED: Record<string, string> = { silu: 'SwiGLU', gelu: 'GeGLU', relu: 'ReGLU' };
export const ffnName = (activation: string, gated: boolean) => (gated ? (GATED[activation.toLowerCase()] ?? `gated ${niceName(activation)}`) : niceName(activation));
