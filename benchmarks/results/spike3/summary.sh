#!/bin/sh
# The paired rows of RESULTS "spike counts only at the edges spike_edges added": sh summary.sh
# (from here). *_fix.md = this change (spike3); ../spike2: off = main before spike-start bins,
# st = main ee4985a (spike-start bins, every spike on an edge counted).
P=../dcq10/paired.py
S=../spike2
cat $S/w1_off.md $S/w1_off_b.md > /tmp/w1_off_16.md; cat $S/d1_off.md $S/d1_off_b.md > /tmp/d1_off_16.md
python $P /tmp/w1_off_16.md w1_fix.md; python $P $S/w1_st.md w1_fix.md
python $P /tmp/d1_off_16.md d1_fix.md; python $P $S/d1_st.md d1_fix.md
python $P $S/w5_off.md w5_fix.md; python $P $S/w5_st.md w5_fix.md
python $P $S/d0.5_off.md d0.5_fix.md; python $P $S/d0.5_st.md d0.5_fix.md
python $P $S/n5_off.md n5_fix.md; python $P $S/n5_st.md n5_fix.md
cat $S/w0.5_off.md $S/w0.5_off_b.md > /tmp/w05_off_16.md; python $P /tmp/w05_off_16.md w0.5_fix.md
cat $S/d5_off.md $S/d5_off_b.md > /tmp/d5_off_16.md; cat $S/d5_st.md $S/d5_st_b.md > /tmp/d5_st_16.md
python $P /tmp/d5_off_16.md d5_fix.md; python $P /tmp/d5_st_16.md d5_fix.md
