from svmbench.webreport.build import main

main()
