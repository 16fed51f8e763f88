/*
 * output/flame_script.c — the JavaScript embedded in every flame graph
 * SVG profkit writes (output/flame.c): click a frame to zoom to it, click
 * "Reset zoom" (or the root) to come back, type in the search box (Ctrl-F
 * focuses it; Escape clears) to highlight frames matching a regular
 * expression and see their share.
 *
 * Frames are <g class="f"> groups carrying their geometry in fractions of
 * the full width (data-x, data-w) and their depth (data-d), so zooming is
 * arithmetic on attributes, with no layout state kept in the script. Each
 * frame's rectangle and label sit in a nested <svg> viewport that clips
 * the label; the labels the writer put there are redone on zoom with the
 * same rule (7 px a character, ".." when cut). The drawing keeps its
 * viewBox and follows the window's width; the script sets the height that
 * goes with it, so a tall graph scrolls instead of shrinking to fit.
 */
#include "flame.h"

const char pk_flame_script[] =
    "var W=0,H=0,ZX=0,ZW=1,ZD=0,frames=[],resetBtn,matchTxt,term,details;\n"
    "function init(){var svg=document.documentElement;W=+svg.getAttribute('data-fw');\n"
    " H=+svg.getAttribute('data-h');frames=[].slice.call(document.querySelectorAll('g.f'));\n"
    " resetBtn=document.getElementById('reset');matchTxt=document.getElementById('matched');\n"
    " details=document.getElementById('details');term=document.getElementById('term');\n"
    " document.getElementById('find').style.display='block';\n"
    " frames.forEach(function(g){g.addEventListener('click',function(e){zoom(g);"
    "e.stopPropagation();});\n"
    "  g.addEventListener('mouseover',function(){details.textContent=\n"
    "   g.querySelector('title').textContent.split('\\n').join('   ');});\n"
    "  g.addEventListener('mouseout',function(){details.textContent=' ';});});\n"
    " resetBtn.addEventListener('click',unzoom);\n"
    " term.addEventListener('input',function(){search(term.value);});\n"
    " window.addEventListener('keydown',function(e){if((e.ctrlKey||e.metaKey)&&e.key==='f'){\n"
    "  e.preventDefault();term.focus();term.select();}else if(e.key==='Escape'){unzoom();\n"
    "  term.value='';search('');}});\n"
    " window.addEventListener('resize',fitHeight);fitHeight();}\n"
    "function fitHeight(){var svg=document.documentElement;if(svg.parentNode!==document)return;\n"
    " svg.setAttribute('height',Math.ceil(H*window.innerWidth/(W+20)));}\n"
    "function fx(g){return +g.getAttribute('data-x');}\n"
    "function fw(g){return +g.getAttribute('data-w');}\n"
    "function fd(g){return +g.getAttribute('data-d');}\n"
    "function fit(g,w){var t=g.querySelector('text'),name=g.getAttribute('data-n'),\n"
    " n=Math.floor((w-6)/7);\n"
    " t.textContent=n<3?'':name.length<=n?name:name.substring(0,n-2)+'..';}\n"
    "function place(g,x,w){var b=g.querySelector('svg');b.setAttribute('x',x);\n"
    " b.setAttribute('width',Math.max(w,0));g.style.display=w<0.1?'none':'';fit(g,w);}\n"
    "function zoom(g){ZX=fx(g);ZW=fw(g);ZD=fd(g);if(ZW<=0)return;\n"
    " frames.forEach(function(h){var x=fx(h),w=fw(h),d=fd(h);\n"
    "  if(d<ZD&&x<=ZX+1e-12&&x+w>=ZX+ZW-1e-12){place(h,10,W);h.classList.add('parent');}\n"
    "  else if(d>=ZD&&x>=ZX-1e-12&&x+w<=ZX+ZW+1e-12){place(h,10+(x-ZX)/ZW*W,w/ZW*W);\n"
    "   h.classList.remove('parent');}\n"
    "  else{place(h,0,0);}});\n"
    " resetBtn.style.opacity=1;document.documentElement.setAttribute('data-zoomed',"
    "g.getAttribute('data-n'));}\n"
    "function unzoom(){ZX=0;ZW=1;ZD=0;frames.forEach(function(h){h.classList.remove('parent');\n"
    " place(h,10+fx(h)*W,fw(h)*W);});resetBtn.style.opacity=0.3;\n"
    " document.documentElement.removeAttribute('data-zoomed');}\n"
    "function search(text){var re=null;if(text){try{re=new RegExp(text);}catch(e){\n"
    "  matchTxt.textContent='not a regular expression';return;}}\n"
    " var spans=[];frames.forEach(function(h){if(re&&re.test(h.getAttribute('data-n'))){\n"
    "  h.classList.add('hit');spans.push([fx(h),fx(h)+fw(h)]);}else h.classList.remove('hit');});\n"
    " if(!re){matchTxt.textContent=' ';return;}\n"
    " spans.sort(function(a,b){return a[0]-b[0];});var tot=0,end=-1;\n"
    " spans.forEach(function(s){if(s[0]>=end){tot+=s[1]-s[0];end=s[1];}\n"
    "  else if(s[1]>end){tot+=s[1]-end;end=s[1];}});\n"
    " matchTxt.textContent='Matched: '+(100*tot).toFixed(1)+'%';}\n"
    "window.addEventListener('load',init);\n";
