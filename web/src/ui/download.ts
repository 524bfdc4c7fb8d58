// Hands the browser a file to save: text (the inspection JSON) or a canvas (a PNG of the heatmap).
export function downloadBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function downloadCanvas(canvas: HTMLCanvasElement, name: string): Promise<void> {
  return new Promise((resolve, reject) =>
    canvas.toBlob((blob) => {
      if (!blob) return reject(new Error('The canvas could not be encoded as PNG'));
      downloadBlob(blob, name);
      resolve();
    }, 'image/png'),
  );
}
