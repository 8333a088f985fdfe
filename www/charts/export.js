// Saving a chart as a file: SVG (serialized with XMLSerializer) or PNG (drawn into a canvas,
// encoded with canvas.toBlob), downloaded through a temporary <a download>.
// Not here: building charts. The timeline is a canvas: pass controller.canvas (what is on
// screen) or controller.toCanvas() (every lane) to exportPng.

import { SVG_NS, INK, context2d } from './svg.js';

/** Downloads a Blob under filename. */
export function downloadBlob(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

function withExtension(filename, ext) {
  const name = String(filename || 'chart');
  return name.toLowerCase().endsWith(`.${ext}`) ? name : `${name}.${ext}`;
}

function svgSize(svg) {
  const w = Number.parseFloat(svg.getAttribute('width')) || svg.getBoundingClientRect().width || 640;
  const h = Number.parseFloat(svg.getAttribute('height')) || svg.getBoundingClientRect().height || 400;
  return [w, h];
}

/** The SVG as a standalone document string (namespaces and size set, no interactive bits). */
export function serializeSvg(svgElement) {
  const clone = svgElement.cloneNode(true);
  const [w, h] = svgSize(svgElement);
  clone.setAttribute('xmlns', SVG_NS);
  clone.setAttribute('xmlns:xlink', 'http://www.w3.org/1999/xlink');
  clone.setAttribute('width', w);
  clone.setAttribute('height', h);
  if (!clone.getAttribute('viewBox')) clone.setAttribute('viewBox', `0 0 ${w} ${h}`);
  clone.removeAttribute('style');
  for (const el of clone.querySelectorAll('[tabindex]')) el.removeAttribute('tabindex');
  const body = new XMLSerializer().serializeToString(clone);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
}

/** Downloads an SVG chart as a .svg file. */
export function exportSvg(svgElement, filename = 'chart.svg') {
  const text = serializeSvg(svgElement);
  downloadBlob(new Blob([text], { type: 'image/svg+xml;charset=utf-8' }), withExtension(filename, 'svg'));
}

function canvasToBlob(canvas) {
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('canvas.toBlob gave nothing'))), 'image/png');
  });
}

/** Renders an SVG element into a new canvas at `scale` times its size (white background). */
export function svgToCanvas(svgElement, scale = 2) {
  const [w, h] = svgSize(svgElement);
  const text = serializeSvg(svgElement);
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml;charset=utf-8' }));
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => {
      const canvas = document.createElement('canvas');
      canvas.width = Math.round(w * scale);
      canvas.height = Math.round(h * scale);
      const ctx = context2d(canvas);
      ctx.fillStyle = INK.background;
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
      URL.revokeObjectURL(url);
      resolve(canvas);
    };
    img.onerror = () => {
      URL.revokeObjectURL(url);
      reject(new Error('could not render the SVG as an image'));
    };
    img.src = url;
  });
}

/**
 * Downloads a chart as a .png. Accepts an <svg> (rendered at options.scale, default 2) or a
 * <canvas> (encoded as it is, over white). Returns a Promise of the Blob.
 */
export async function exportPng(svgOrCanvasElement, filename = 'chart.png', options = {}) {
  const el = svgOrCanvasElement;
  let canvas;
  if (el instanceof HTMLCanvasElement) {
    canvas = document.createElement('canvas');
    canvas.width = el.width;
    canvas.height = el.height;
    const ctx = context2d(canvas);
    ctx.fillStyle = INK.background;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(el, 0, 0);
  } else if (el && el.namespaceURI === SVG_NS) {
    canvas = await svgToCanvas(el, options.scale || 2);
  } else {
    throw new Error('exportPng needs an <svg> or a <canvas>');
  }
  const blob = await canvasToBlob(canvas);
  downloadBlob(blob, withExtension(filename, 'png'));
  return blob;
}
