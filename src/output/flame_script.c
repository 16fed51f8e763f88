/*
 * output/flame_script.c — the JavaScript embedded in every flame graph
 * SVG profkit writes (output/flame.c): click a frame to zoom to it, click
 * "Reset zoom" (or the root) to come back, "Search" (or Ctrl-F) to
 * highlight frames matching a regular expression and see their share.
 *
 * Frames are <g class="f"> groups carrying their geometry in fractions of
 * the full width (data-x, data-w) and their depth (data-d), so zooming is
 * arithmetic on attributes, with no layout state kept in the script.
 */
#include "flame.h"

const char pk_flame_script[] =
    "var W=0,ZX=0,ZW=1,ZD=0,frames=[],resetBtn,matchTxt,searchBtn,details;\n"
    "function init(){var svg=document.documentElement;W=+svg.getAttribute('data-fw');\n"
    " frames=[].slice.call(document.querySelectorAll('g.f'));\n"
    " resetBtn=document.getElementById('reset');matchTxt=document.getElementById('matched');\n"
    " searchBtn=document.getElementById('search');details=document.getElementById('details');\n"
    " frames.forEach(function(g){g.addEventListener('click',function(e){zoom(g);e.stopPropagation()"
    ";});\n"
    "  "
    "g.addEventListener('mouseover',function(){details.textContent=g.querySelector('title')."
    "textContent;});\n"
    "  g.addEventListener('mouseout',function(){details.textContent=' ';});});\n"
    " resetBtn.addEventListener('click',unzoom);searchBtn.addEventListener('click',search);\n"
    " window.addEventListener('keydown',function(e){if((e.ctrlKey||e.metaKey)&&e.key==='f'){\n"
    "  e.preventDefault();search();}else if(e.key==='Escape'){unzoom();clearSearch();}});\n"
    " fitAll();}\n"
    "function fx(g){return +g.getAttribute('data-x');}\n"
    "function fw(g){return +g.getAttribute('data-w');}\n"
    "function fd(g){return +g.getAttribute('data-d');}\n"
    "function fit(g){var r=g.querySelector('rect'),t=g.querySelector('text'),\n"
    " w=+r.getAttribute('width'),name=g.getAttribute('data-n'),n=Math.floor((w-6)/7);\n"
    " t.setAttribute('x',+r.getAttribute('x')+3);\n"
    " t.textContent=n<3?'':name.length<=n?name:name.substring(0,n-2)+'..';}\n"
    "function place(g,x,w){var r=g.querySelector('rect');r.setAttribute('x',x);\n"
    " r.setAttribute('width',Math.max(w,0));g.style.display=w<0.1?'none':'';fit(g);}\n"
    "function fitAll(){frames.forEach(function(g){fit(g);});}\n"
    "function zoom(g){ZX=fx(g);ZW=fw(g);ZD=fd(g);if(ZW<=0)return;\n"
    " frames.forEach(function(h){var x=fx(h),w=fw(h),d=fd(h);\n"
    "  if(d<ZD&&x<=ZX+1e-12&&x+w>=ZX+ZW-1e-12){place(h,10,W);h.classList.add('parent');}\n"
    "  else if(d>=ZD&&x>=ZX-1e-12&&x+w<=ZX+ZW+1e-12){place(h,10+(x-ZX)/ZW*W,w/ZW*W);\n"
    "   h.classList.remove('parent');}\n"
    "  else{place(h,0,0);}});\n"
    " resetBtn.style.opacity=1;document.documentElement.setAttribute('data-zoomed',g.getAttribute('"
    "data-n'));}\n"
    "function unzoom(){ZX=0;ZW=1;ZD=0;frames.forEach(function(h){h.classList.remove('parent');\n"
    " place(h,10+fx(h)*W,fw(h)*W);});resetBtn.style.opacity=0.3;\n"
    " document.documentElement.removeAttribute('data-zoomed');}\n"
    "function clearSearch(){frames.forEach(function(h){h.classList.remove('hit');});\n"
    " matchTxt.textContent=' ';}\n"
    "function search(){var term=window.prompt('Search for (regular expression):','');\n"
    " if(!term){clearSearch();return;}var re;try{re=new RegExp(term);}catch(e){return;}\n"
    " var spans=[];frames.forEach(function(h){if(re.test(h.getAttribute('data-n'))){\n"
    "  h.classList.add('hit');spans.push([fx(h),fx(h)+fw(h)]);}else h.classList.remove('hit');});\n"
    " spans.sort(function(a,b){return a[0]-b[0];});var tot=0,end=-1;\n"
    " spans.forEach(function(s){if(s[0]>=end){tot+=s[1]-s[0];end=s[1];}\n"
    "  else if(s[1]>end){tot+=s[1]-end;end=s[1];}});\n"
    " matchTxt.textContent='Matched: '+(100*tot).toFixed(1)+'%';}\n"
    "window.addEventListener('load',init);\n";
